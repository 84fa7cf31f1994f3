/**
 * Flame graphs of V8 CPU profiles: `tsx bench/flame.ts DIR [OUT]` draws every `*.cpuprofile` in
 * DIR (written by `bench/run.ts --cpu-prof DIR`) as an SVG flame graph in OUT (default DIR), and
 * prints each profile's heaviest functions by self time. The stacks are folded here (one line
 * per distinct stack, with its sampled microseconds); stackvis (bench's own dependency) draws them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const STACKVIS = join(import.meta.dirname, 'node_modules', '.bin', 'stackvis');

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url ? basename(url) : '';
  // stackvis's folded format separates frames with `,` and the count with a space: neither in a name.
  return `${functionName || '(anonymous)'}${file ? `@${file}:${lineNumber + 1}` : ''}`.replace(/[,\s]/g, '_');
}

/** One line per distinct stack, root first, with the microseconds sampled in it. */
function folded(profile: CpuProfile): { lines: string[]; selfMs: Map<string, number>; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const timeByNode = new Map<number, number>();
  for (const [i, id] of profile.samples.entries())
    timeByNode.set(id, (timeByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const lines: string[] = [];
  const selfMs = new Map<string, number>();
  let totalMs = 0;
  for (const [id, micros] of timeByNode) {
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    const frames: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at)!;
      if (node.callFrame.functionName !== '(root)') frames.unshift(frameName(node));
    }
    const ms = micros / 1000;
    totalMs += ms;
    selfMs.set(frameName(leaf), (selfMs.get(frameName(leaf)) ?? 0) + ms);
    lines.push(`${frames.join(',')} ${Math.max(1, Math.round(micros))}`);
  }
  return { lines, selfMs, totalMs };
}

function main(): void {
  const [dir, out = dir] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: tsx bench/flame.ts DIR [OUT]');
    process.exit(2);
  }
  mkdirSync(out!, { recursive: true });
  const profiles = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (profiles.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  for (const file of profiles) {
    const { lines, selfMs, totalMs } = folded(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
    const drawn = spawnSync(STACKVIS, ['collapsed', 'flamegraph-svg'], { input: lines.join('\n'), maxBuffer: 1 << 28 });
    if (drawn.status !== 0) throw new Error(`stackvis failed: ${drawn.stderr}`);
    const svg = join(out!, file.replace(/\.cpuprofile$/, '.svg'));
    writeFileSync(svg, drawn.stdout);
    console.log(`${svg}: ${(totalMs / 1000).toFixed(1)} s on CPU; heaviest by self time:`);
    for (const [name, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, 12))
      console.log(`  ${((ms / totalMs) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}

main();
