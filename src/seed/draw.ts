/**
 * The seed's means: one random sequence (Draw) and the tables it fills, in an order that
 * satisfies their foreign keys (Tables), plus the column helpers every step uses.
 */
import { Faker, base, de, en, fr, fr_BE, nl, nl_BE } from '@faker-js/faker';
import { Decimal as PrismaDecimal } from '@prisma/client/runtime/client';
import type { Names } from './catalog.ts';

export const Decimal = PrismaDecimal;
export type Row = Record<string, unknown>;

/** Rows of one Prisma model, in an order that satisfies foreign keys when written in sequence. */
export interface SeedTable {
  model: string;
  rows: Row[];
}

/** Columns of a localized attribute from [en, nl, fr, de] names. */
export function localized(prefix: string, names: Names, suffix: Names = ['', '', '', '']): Row {
  const join = (a: string, b: string) => (b ? `${a} ${b}` : a);
  return {
    [`${prefix}_en`]: join(names[0], suffix[0]),
    [`${prefix}_nl`]: join(names[1], suffix[1]),
    [`${prefix}_fr`]: join(names[2], suffix[2]),
    [`${prefix}_de`]: join(names[3], suffix[3]),
  };
}

const COUNTRIES = [
  { code: 'BE', language: 'nl', locales: [nl_BE, nl, en, base], weight: 35 },
  { code: 'BE', language: 'fr', locales: [fr_BE, fr, en, base], weight: 20 },
  { code: 'NL', language: 'nl', locales: [nl, en, base], weight: 25 },
  { code: 'DE', language: 'de', locales: [de, en, base], weight: 10 },
  { code: 'FR', language: 'fr', locales: [fr, en, base], weight: 10 },
] as const;

/** The seed's random draws: one generator for everything, and one Faker per country for names and places. */
export class Draw {
  readonly rng: Faker;
  private readonly fakers: Faker[];

  constructor(seed: number) {
    this.rng = new Faker({ locale: [en, base], seed });
    this.fakers = COUNTRIES.map((c, i) => new Faker({ locale: [...c.locales], seed: seed * 100 + i }));
  }

  int(min: number, max: number): number {
    return this.rng.number.int({ min, max });
  }

  chance(p: number): boolean {
    return this.rng.number.float() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(0, list.length - 1)]!;
  }

  some<T>(list: readonly T[], min: number, max: number): T[] {
    return this.rng.helpers.arrayElements(list as T[], { min, max });
  }

  /** A decimal with `places` decimals between min and max. */
  decimal(min: number, max: number, places: number): string {
    const factor = 10 ** places;
    return new Decimal(this.int(Math.round(min * factor), Math.round(max * factor))).div(factor).toString();
  }

  country() {
    let roll = this.int(1, 100);
    for (const [i, c] of COUNTRIES.entries()) {
      roll -= c.weight;
      if (roll <= 0) return { ...c, faker: this.fakers[i]! };
    }
    return { ...COUNTRIES[0], faker: this.fakers[0]! };
  }
}

export type Place = ReturnType<Draw['country']>;

/** The tables in the order they are made, which is an order that satisfies their foreign keys. */
export class Tables {
  readonly all: SeedTable[] = [];

  add(model: string, rows: Row[]): Row[] {
    this.all.push({ model, rows });
    return rows;
  }
}
