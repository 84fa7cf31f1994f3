/**
 * The fixed vocabulary of the demo business: a bakery with a dairy line. Names are
 * [en, nl, fr, de]. Everything scaled (customers, products, ...) is built from these in
 * ./generate.ts.
 *
 * Kept whole: this is data, not logic, the business's whole vocabulary in one table a reader
 * scans top to bottom (which group a product is in, what goes into what); split, it would only
 * scatter entries that refer to one another by name.
 */
export type Names = readonly [en: string, nl: string, fr: string, de: string];

export const UNITS = [
  { reference: 'kg', names: ['kilogram', 'kilogram', 'kilogramme', 'Kilogramm'] },
  { reference: 'g', names: ['gram', 'gram', 'gramme', 'Gramm'] },
  { reference: 'l', names: ['litre', 'liter', 'litre', 'Liter'] },
  { reference: 'pcs', names: ['pieces', 'stuks', 'pièces', 'Stück'] },
] as const satisfies readonly { reference: string; names: Names }[];
export type UnitRef = (typeof UNITS)[number]['reference'];

export const LANGUAGES = [
  { code: 'nl', description: 'Nederlands' },
  { code: 'fr', description: 'Français' },
  { code: 'en', description: 'English' },
  { code: 'de', description: 'Deutsch' },
] as const;

export const CURRENCIES = [
  { code: 'EUR', symbol: '€', names: ['Euro', 'Euro', 'Euro', 'Euro'] },
  { code: 'GBP', symbol: '£', names: ['Pound sterling', 'Britse pond', 'Livre sterling', 'Pfund Sterling'] },
  { code: 'USD', symbol: '$', names: ['US dollar', 'Amerikaanse dollar', 'Dollar américain', 'US-Dollar'] },
  { code: 'CHF', symbol: 'CHF', names: ['Swiss franc', 'Zwitserse frank', 'Franc suisse', 'Schweizer Franken'] },
] as const satisfies readonly { code: string; symbol: string; names: Names }[];

export const CUSTOMER_TYPES: readonly Names[] = [
  ['Retail', 'Detailhandel', 'Commerce de détail', 'Einzelhandel'],
  ['Wholesale', 'Groothandel', 'Commerce de gros', 'Großhandel'],
  ['Food service', 'Horeca', 'Restauration', 'Gastronomie'],
  ['Industry', 'Industrie', 'Industrie', 'Industrie'],
  ['Export', 'Export', 'Exportation', 'Export'],
];

export const FUNCTION_GROUPS = [
  ['QA', 'Quality assurance'],
  ['SALES', 'Sales'],
  ['LOG', 'Logistics'],
  ['PURCH', 'Purchasing'],
  ['PROD', 'Production'],
  ['FIN', 'Finance'],
] as const;

export const PRODUCT_GROUP_TYPES: readonly Names[] = [
  ['Finished goods', 'Eindproducten', 'Produits finis', 'Fertigwaren'],
  ['Semi-finished goods', 'Halffabricaten', 'Produits semi-finis', 'Halbfabrikate'],
  ['Raw materials', 'Grondstoffen', 'Matières premières', 'Rohstoffe'],
  ['Packaging', 'Verpakking', 'Emballage', 'Verpackung'],
];

/** Product groups with the index of their group type in PRODUCT_GROUP_TYPES. */
export const PRODUCT_GROUPS: readonly { names: Names; type: number; bbd: number; color: string }[] = [
  { names: ['Bread', 'Brood', 'Pain', 'Brot'], type: 0, bbd: 2, color: '#C8A165' },
  { names: ['Viennoiserie', 'Koffiekoeken', 'Viennoiseries', 'Plundergebäck'], type: 0, bbd: 2, color: '#E0B050' },
  {
    names: ['Pastry and cakes', 'Gebak en taarten', 'Pâtisserie', 'Kuchen und Torten'],
    type: 0,
    bbd: 3,
    color: '#D46A8C',
  },
  { names: ['Cookies', 'Koekjes', 'Biscuits', 'Kekse'], type: 0, bbd: 30, color: '#A0522D' },
  {
    names: ['Yoghurt and desserts', 'Yoghurt en desserts', 'Yaourts et desserts', 'Joghurt und Desserts'],
    type: 0,
    bbd: 7,
    color: '#F0F0FF',
  },
  { names: ['Cheese', 'Kaas', 'Fromage', 'Käse'], type: 0, bbd: 20, color: '#FFD700' },
  { names: ['Doughs', 'Degen', 'Pâtes', 'Teige'], type: 1, bbd: 1, color: '#EEE8AA' },
  {
    names: ['Fillings and creams', 'Vullingen en crèmes', 'Garnitures et crèmes', 'Füllungen und Cremes'],
    type: 1,
    bbd: 2,
    color: '#FFE4C4',
  },
  {
    names: ['Dairy bases', 'Zuivelbasissen', 'Bases laitières', 'Milchgrundstoffe'],
    type: 1,
    bbd: 3,
    color: '#FFFFF0',
  },
  {
    names: ['Flours and grains', 'Bloem en granen', 'Farines et céréales', 'Mehle und Getreide'],
    type: 2,
    bbd: 180,
    color: '#F5DEB3',
  },
  {
    names: ['Dairy ingredients', 'Zuivelingrediënten', 'Ingrédients laitiers', 'Milchzutaten'],
    type: 2,
    bbd: 10,
    color: '#FAFAFA',
  },
  {
    names: ['Sugars and sweeteners', 'Suikers en zoetstoffen', 'Sucres et édulcorants', 'Zucker und Süßungsmittel'],
    type: 2,
    bbd: 365,
    color: '#FFFFFF',
  },
  {
    names: ['Fats and oils', 'Vetten en oliën', 'Matières grasses', 'Fette und Öle'],
    type: 2,
    bbd: 90,
    color: '#FFF8DC',
  },
  {
    names: ['Fruit and nuts', 'Fruit en noten', 'Fruits et noix', 'Obst und Nüsse'],
    type: 2,
    bbd: 60,
    color: '#B22222',
  },
  { names: ['Additives', 'Hulpstoffen', 'Additifs', 'Zusatzstoffe'], type: 2, bbd: 365, color: '#D3D3D3' },
  { names: ['Packaging', 'Verpakking', 'Emballage', 'Verpackung'], type: 3, bbd: 0, color: '#8B4513' },
];

/** Index of a product group by its English name. */
export function groupIndex(en: string): number {
  const index = PRODUCT_GROUPS.findIndex((g) => g.names[0] === en);
  if (index < 0) throw new Error(`no product group ${en}`);
  return index;
}

export interface Material {
  names: Names;
  unit: UnitRef;
  group: string;
  /** Intrastat (combined nomenclature) code. */
  intrastat: string;
}

export const RAW_MATERIALS: readonly Material[] = [
  {
    names: ['Wheat flour', 'Tarwebloem', 'Farine de blé', 'Weizenmehl'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '11010015',
  },
  {
    names: ['Rye flour', 'Roggebloem', 'Farine de seigle', 'Roggenmehl'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '11029050',
  },
  {
    names: ['Spelt flour', 'Speltbloem', "Farine d'épeautre", 'Dinkelmehl'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '11010011',
  },
  {
    names: ['Whole wheat flour', 'Volkorenmeel', 'Farine complète', 'Vollkornmehl'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '11010015',
  },
  {
    names: ['Oat flakes', 'Havervlokken', "Flocons d'avoine", 'Haferflocken'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '11041200',
  },
  {
    names: ['Sunflower seeds', 'Zonnebloempitten', 'Graines de tournesol', 'Sonnenblumenkerne'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '12060091',
  },
  {
    names: ['Sesame seeds', 'Sesamzaad', 'Graines de sésame', 'Sesam'],
    unit: 'kg',
    group: 'Flours and grains',
    intrastat: '12074090',
  },
  { names: ['Water', 'Water', 'Eau', 'Wasser'], unit: 'l', group: 'Additives', intrastat: '22019000' },
  {
    names: ['Fresh yeast', 'Verse gist', 'Levure fraîche', 'Frischhefe'],
    unit: 'kg',
    group: 'Additives',
    intrastat: '21021031',
  },
  { names: ['Salt', 'Zout', 'Sel', 'Salz'], unit: 'kg', group: 'Additives', intrastat: '25010091' },
  {
    names: ['Baking powder', 'Bakpoeder', 'Levure chimique', 'Backpulver'],
    unit: 'g',
    group: 'Additives',
    intrastat: '21023000',
  },
  {
    names: ['Malt extract', 'Moutextract', 'Extrait de malt', 'Malzextrakt'],
    unit: 'kg',
    group: 'Additives',
    intrastat: '19019011',
  },
  {
    names: ['Vanilla extract', 'Vanille-extract', 'Extrait de vanille', 'Vanilleextrakt'],
    unit: 'l',
    group: 'Additives',
    intrastat: '13021905',
  },
  { names: ['Cinnamon', 'Kaneel', 'Cannelle', 'Zimt'], unit: 'g', group: 'Additives', intrastat: '09061100' },
  { names: ['Gelatine', 'Gelatine', 'Gélatine', 'Gelatine'], unit: 'g', group: 'Additives', intrastat: '35030010' },
  {
    names: ['Starter culture', 'Zuursel', 'Ferments lactiques', 'Starterkultur'],
    unit: 'g',
    group: 'Dairy ingredients',
    intrastat: '30029050',
  },
  { names: ['Rennet', 'Stremsel', 'Présure', 'Lab'], unit: 'l', group: 'Dairy ingredients', intrastat: '35079090' },
  {
    names: ['Whole milk', 'Volle melk', 'Lait entier', 'Vollmilch'],
    unit: 'l',
    group: 'Dairy ingredients',
    intrastat: '04012099',
  },
  { names: ['Cream', 'Room', 'Crème', 'Sahne'], unit: 'l', group: 'Dairy ingredients', intrastat: '04015031' },
  { names: ['Butter', 'Boter', 'Beurre', 'Butter'], unit: 'kg', group: 'Fats and oils', intrastat: '04051019' },
  {
    names: ['Skimmed milk powder', 'Magere melkpoeder', 'Lait écrémé en poudre', 'Magermilchpulver'],
    unit: 'kg',
    group: 'Dairy ingredients',
    intrastat: '04021019',
  },
  { names: ['Eggs', 'Eieren', 'Œufs', 'Eier'], unit: 'pcs', group: 'Dairy ingredients', intrastat: '04072100' },
  {
    names: ['Rapeseed oil', 'Koolzaadolie', 'Huile de colza', 'Rapsöl'],
    unit: 'l',
    group: 'Fats and oils',
    intrastat: '15141990',
  },
  {
    names: ['Margarine', 'Margarine', 'Margarine', 'Margarine'],
    unit: 'kg',
    group: 'Fats and oils',
    intrastat: '15171090',
  },
  { names: ['Sugar', 'Suiker', 'Sucre', 'Zucker'], unit: 'kg', group: 'Sugars and sweeteners', intrastat: '17019910' },
  {
    names: ['Icing sugar', 'Poedersuiker', 'Sucre glace', 'Puderzucker'],
    unit: 'kg',
    group: 'Sugars and sweeteners',
    intrastat: '17019910',
  },
  { names: ['Honey', 'Honing', 'Miel', 'Honig'], unit: 'kg', group: 'Sugars and sweeteners', intrastat: '04090000' },
  {
    names: ['Dark chocolate', 'Pure chocolade', 'Chocolat noir', 'Zartbitterschokolade'],
    unit: 'kg',
    group: 'Sugars and sweeteners',
    intrastat: '18062010',
  },
  {
    names: ['Milk chocolate', 'Melkchocolade', 'Chocolat au lait', 'Vollmilchschokolade'],
    unit: 'kg',
    group: 'Sugars and sweeteners',
    intrastat: '18062010',
  },
  {
    names: ['Cocoa powder', 'Cacaopoeder', 'Cacao en poudre', 'Kakaopulver'],
    unit: 'kg',
    group: 'Sugars and sweeteners',
    intrastat: '18050000',
  },
  {
    names: ['Hazelnuts', 'Hazelnoten', 'Noisettes', 'Haselnüsse'],
    unit: 'kg',
    group: 'Fruit and nuts',
    intrastat: '08022200',
  },
  { names: ['Almonds', 'Amandelen', 'Amandes', 'Mandeln'], unit: 'kg', group: 'Fruit and nuts', intrastat: '08021290' },
  {
    names: ['Raisins', 'Rozijnen', 'Raisins secs', 'Rosinen'],
    unit: 'kg',
    group: 'Fruit and nuts',
    intrastat: '08062030',
  },
  {
    names: ['Strawberries', 'Aardbeien', 'Fraises', 'Erdbeeren'],
    unit: 'kg',
    group: 'Fruit and nuts',
    intrastat: '08101000',
  },
  {
    names: ['Raspberries', 'Frambozen', 'Framboises', 'Himbeeren'],
    unit: 'kg',
    group: 'Fruit and nuts',
    intrastat: '08102010',
  },
  { names: ['Apples', 'Appels', 'Pommes', 'Äpfel'], unit: 'kg', group: 'Fruit and nuts', intrastat: '08081080' },
];

export const PACKAGING: readonly Material[] = [
  {
    names: ['Paper bag', 'Papieren zak', 'Sac en papier', 'Papiertüte'],
    unit: 'pcs',
    group: 'Packaging',
    intrastat: '48193000',
  },
  {
    names: ['Cardboard box', 'Kartonnen doos', 'Boîte en carton', 'Karton'],
    unit: 'pcs',
    group: 'Packaging',
    intrastat: '48191000',
  },
  {
    names: ['Plastic tray', 'Plastic schaal', 'Barquette plastique', 'Kunststoffschale'],
    unit: 'pcs',
    group: 'Packaging',
    intrastat: '39231090',
  },
  {
    names: ['Yoghurt cup', 'Yoghurtbeker', 'Pot de yaourt', 'Joghurtbecher'],
    unit: 'pcs',
    group: 'Packaging',
    intrastat: '39239000',
  },
  { names: ['Label', 'Etiket', 'Étiquette', 'Etikett'], unit: 'pcs', group: 'Packaging', intrastat: '48211010' },
  {
    names: ['Foil wrap', 'Verpakkingsfolie', "Film d'emballage", 'Verpackungsfolie'],
    unit: 'pcs',
    group: 'Packaging',
    intrastat: '39201025',
  },
  {
    names: ['Cheese wax', 'Kaaswas', 'Cire à fromage', 'Käsewachs'],
    unit: 'kg',
    group: 'Packaging',
    intrastat: '27129039',
  },
];

/** Semi-finished goods: made in house from raw materials, used in finished goods. */
export const INTERMEDIATES: readonly (Material & { uses: readonly string[] })[] = [
  {
    names: ['Bread dough', 'Brooddeeg', 'Pâte à pain', 'Brotteig'],
    unit: 'kg',
    group: 'Doughs',
    intrastat: '19012000',
    uses: ['Wheat flour', 'Water', 'Fresh yeast', 'Salt', 'Malt extract'],
  },
  {
    names: ['Sourdough', 'Zuurdesem', 'Levain', 'Sauerteig'],
    unit: 'kg',
    group: 'Doughs',
    intrastat: '19012000',
    uses: ['Rye flour', 'Wheat flour', 'Water', 'Salt'],
  },
  {
    names: ['Puff pastry', 'Bladerdeeg', 'Pâte feuilletée', 'Blätterteig'],
    unit: 'kg',
    group: 'Doughs',
    intrastat: '19012000',
    uses: ['Wheat flour', 'Butter', 'Water', 'Salt'],
  },
  {
    names: ['Croissant dough', 'Croissantdeeg', 'Pâte à croissant', 'Croissantteig'],
    unit: 'kg',
    group: 'Doughs',
    intrastat: '19012000',
    uses: ['Wheat flour', 'Butter', 'Whole milk', 'Sugar', 'Fresh yeast', 'Salt', 'Eggs'],
  },
  {
    names: ['Sweet dough', 'Zoet deeg', 'Pâte sucrée', 'Mürbeteig'],
    unit: 'kg',
    group: 'Doughs',
    intrastat: '19012000',
    uses: ['Wheat flour', 'Butter', 'Icing sugar', 'Eggs', 'Salt'],
  },
  {
    names: ['Pastry cream', 'Banketbakkersroom', 'Crème pâtissière', 'Konditorcreme'],
    unit: 'kg',
    group: 'Fillings and creams',
    intrastat: '21069098',
    uses: ['Whole milk', 'Sugar', 'Eggs', 'Vanilla extract', 'Butter'],
  },
  {
    names: ['Chocolate ganache', 'Chocoladeganache', 'Ganache au chocolat', 'Schokoladenganache'],
    unit: 'kg',
    group: 'Fillings and creams',
    intrastat: '18069090',
    uses: ['Dark chocolate', 'Cream', 'Butter'],
  },
  {
    names: ['Fruit filling', 'Vruchtenvulling', 'Garniture aux fruits', 'Fruchtfüllung'],
    unit: 'kg',
    group: 'Fillings and creams',
    intrastat: '20079993',
    uses: ['Strawberries', 'Raspberries', 'Apples', 'Sugar', 'Gelatine'],
  },
  {
    names: ['Crumble topping', 'Crumble', 'Crumble', 'Streusel'],
    unit: 'kg',
    group: 'Fillings and creams',
    intrastat: '19059090',
    uses: ['Wheat flour', 'Butter', 'Sugar', 'Cinnamon', 'Oat flakes'],
  },
  {
    names: ['Yoghurt base', 'Yoghurtbasis', 'Base de yaourt', 'Joghurtbasis'],
    unit: 'kg',
    group: 'Dairy bases',
    intrastat: '04031011',
    uses: ['Whole milk', 'Skimmed milk powder', 'Starter culture'],
  },
  {
    names: ['Cheese curd', 'Kaaswrongel', 'Caillé', 'Käsebruch'],
    unit: 'kg',
    group: 'Dairy bases',
    intrastat: '04069099',
    uses: ['Whole milk', 'Rennet', 'Starter culture', 'Salt'],
  },
];

/** Sales products: made from intermediates, raw materials and packaging. */
export const FINISHED: readonly (Material & { uses: readonly string[]; packaging: readonly string[]; gram: number })[] =
  [
    {
      names: ['White bread', 'Wit brood', 'Pain blanc', 'Weißbrot'],
      unit: 'pcs',
      group: 'Bread',
      intrastat: '19059080',
      uses: ['Bread dough'],
      packaging: ['Paper bag', 'Label'],
      gram: 800,
    },
    {
      names: ['Whole wheat bread', 'Volkorenbrood', 'Pain complet', 'Vollkornbrot'],
      unit: 'pcs',
      group: 'Bread',
      intrastat: '19059080',
      uses: ['Bread dough', 'Whole wheat flour', 'Sunflower seeds'],
      packaging: ['Paper bag', 'Label'],
      gram: 800,
    },
    {
      names: ['Sourdough loaf', 'Desembrood', 'Pain au levain', 'Sauerteigbrot'],
      unit: 'pcs',
      group: 'Bread',
      intrastat: '19059080',
      uses: ['Sourdough', 'Spelt flour'],
      packaging: ['Paper bag', 'Label'],
      gram: 1000,
    },
    {
      names: ['Seeded rye bread', 'Meergranen roggebrood', 'Pain de seigle aux graines', 'Roggenbrot mit Saaten'],
      unit: 'pcs',
      group: 'Bread',
      intrastat: '19059080',
      uses: ['Sourdough', 'Sesame seeds', 'Sunflower seeds'],
      packaging: ['Foil wrap', 'Label'],
      gram: 750,
    },
    {
      names: ['Croissant', 'Croissant', 'Croissant', 'Croissant'],
      unit: 'pcs',
      group: 'Viennoiserie',
      intrastat: '19059070',
      uses: ['Croissant dough', 'Eggs'],
      packaging: ['Plastic tray', 'Label'],
      gram: 60,
    },
    {
      names: ['Chocolate croissant', 'Chocoladebroodje', 'Pain au chocolat', 'Schokocroissant'],
      unit: 'pcs',
      group: 'Viennoiserie',
      intrastat: '19059070',
      uses: ['Croissant dough', 'Dark chocolate'],
      packaging: ['Plastic tray', 'Label'],
      gram: 70,
    },
    {
      names: ['Apple turnover', 'Appelflap', 'Chausson aux pommes', 'Apfeltasche'],
      unit: 'pcs',
      group: 'Viennoiserie',
      intrastat: '19059070',
      uses: ['Puff pastry', 'Fruit filling', 'Icing sugar'],
      packaging: ['Plastic tray', 'Label'],
      gram: 120,
    },
    {
      names: ['Cinnamon roll', 'Kaneelbroodje', 'Roulé à la cannelle', 'Zimtschnecke'],
      unit: 'pcs',
      group: 'Viennoiserie',
      intrastat: '19059070',
      uses: ['Croissant dough', 'Cinnamon', 'Sugar', 'Raisins'],
      packaging: ['Plastic tray', 'Label'],
      gram: 90,
    },
    {
      names: ['Strawberry tart', 'Aardbeientaart', 'Tarte aux fraises', 'Erdbeertorte'],
      unit: 'pcs',
      group: 'Pastry and cakes',
      intrastat: '19059070',
      uses: ['Sweet dough', 'Pastry cream', 'Strawberries'],
      packaging: ['Cardboard box', 'Label'],
      gram: 900,
    },
    {
      names: ['Chocolate cake', 'Chocoladetaart', 'Gâteau au chocolat', 'Schokoladentorte'],
      unit: 'pcs',
      group: 'Pastry and cakes',
      intrastat: '19059070',
      uses: ['Sweet dough', 'Chocolate ganache', 'Cocoa powder'],
      packaging: ['Cardboard box', 'Label'],
      gram: 1000,
    },
    {
      names: ['Apple crumble', 'Appelcrumble', 'Crumble aux pommes', 'Apfelstreusel'],
      unit: 'pcs',
      group: 'Pastry and cakes',
      intrastat: '19059070',
      uses: ['Sweet dough', 'Fruit filling', 'Crumble topping', 'Apples'],
      packaging: ['Cardboard box', 'Label'],
      gram: 850,
    },
    {
      names: ['Butter cookies', 'Boterkoekjes', 'Biscuits au beurre', 'Butterkekse'],
      unit: 'pcs',
      group: 'Cookies',
      intrastat: '19053199',
      uses: ['Sweet dough', 'Butter'],
      packaging: ['Foil wrap', 'Cardboard box', 'Label'],
      gram: 250,
    },
    {
      names: ['Hazelnut cookies', 'Hazelnootkoekjes', 'Biscuits aux noisettes', 'Haselnusskekse'],
      unit: 'pcs',
      group: 'Cookies',
      intrastat: '19053199',
      uses: ['Sweet dough', 'Hazelnuts', 'Milk chocolate'],
      packaging: ['Foil wrap', 'Cardboard box', 'Label'],
      gram: 200,
    },
    {
      names: ['Plain yoghurt', 'Natuuryoghurt', 'Yaourt nature', 'Naturjoghurt'],
      unit: 'pcs',
      group: 'Yoghurt and desserts',
      intrastat: '04032011',
      uses: ['Yoghurt base'],
      packaging: ['Yoghurt cup', 'Label'],
      gram: 500,
    },
    {
      names: ['Strawberry yoghurt', 'Aardbeienyoghurt', 'Yaourt à la fraise', 'Erdbeerjoghurt'],
      unit: 'pcs',
      group: 'Yoghurt and desserts',
      intrastat: '04032051',
      uses: ['Yoghurt base', 'Fruit filling'],
      packaging: ['Yoghurt cup', 'Label'],
      gram: 500,
    },
    {
      names: ['Honey yoghurt', 'Honingyoghurt', 'Yaourt au miel', 'Honigjoghurt'],
      unit: 'pcs',
      group: 'Yoghurt and desserts',
      intrastat: '04032051',
      uses: ['Yoghurt base', 'Honey'],
      packaging: ['Yoghurt cup', 'Label'],
      gram: 500,
    },
    {
      names: ['Young Gouda', 'Jonge Gouda', 'Gouda jeune', 'Junger Gouda'],
      unit: 'pcs',
      group: 'Cheese',
      intrastat: '04069078',
      uses: ['Cheese curd'],
      packaging: ['Cheese wax', 'Label'],
      gram: 4500,
    },
    {
      names: ['Herb cheese', 'Kruidenkaas', 'Fromage aux herbes', 'Kräuterkäse'],
      unit: 'pcs',
      group: 'Cheese',
      intrastat: '04069078',
      uses: ['Cheese curd', 'Salt'],
      packaging: ['Cheese wax', 'Label'],
      gram: 2000,
    },
  ];

/** Variants that turn the base products above into a catalogue of realistic size. */
export const VARIANTS: readonly Names[] = [
  ['', '', '', ''],
  ['organic', 'bio', 'bio', 'Bio'],
  ['large', 'groot', 'grand', 'groß'],
  ['small', 'klein', 'petit', 'klein'],
  ['family pack', 'gezinsverpakking', 'format familial', 'Familienpackung'],
  ['premium', 'premium', 'premium', 'Premium'],
  ['private label', 'huismerk', 'marque distributeur', 'Eigenmarke'],
  ['export', 'export', 'export', 'Export'],
];

export const BRANDS = [
  'Bakkerij De Molen',
  'Maison Dorée',
  'Alpenhof',
  'Golden Crust',
  'Zuivelhoeve',
  'Le Petit Four',
  'Korenbloem',
  'Hofmolkerei',
];

export const PRODUCTION_LINES = [
  { reference: 'L01', names: ['Bread line 1', 'Broodlijn 1', 'Ligne pain 1', 'Brotlinie 1'] },
  { reference: 'L02', names: ['Bread line 2', 'Broodlijn 2', 'Ligne pain 2', 'Brotlinie 2'] },
  { reference: 'L03', names: ['Laminating line', 'Laminatielijn', 'Ligne de laminage', 'Tourierlinie'] },
  { reference: 'L04', names: ['Pastry line', 'Gebaklijn', 'Ligne pâtisserie', 'Konditoreilinie'] },
  { reference: 'L05', names: ['Cookie line', 'Koekjeslijn', 'Ligne biscuits', 'Kekslinie'] },
  {
    reference: 'L06',
    names: ['Yoghurt filling line', 'Yoghurtvullijn', 'Ligne de remplissage yaourt', 'Joghurtabfülllinie'],
  },
  { reference: 'L07', names: ['Cheese vat line', 'Kaasbereiding', 'Ligne de fromagerie', 'Käsereilinie'] },
  { reference: 'L08', names: ['Filling kitchen', 'Vullingkeuken', 'Cuisine garnitures', 'Füllungsküche'] },
] as const satisfies readonly { reference: string; names: Names }[];

export const SUPPLIER_TYPES: readonly { names: Names; emergency: boolean; certificates: boolean }[] = [
  { names: ['Flour mill', 'Maalderij', 'Minoterie', 'Mühle'], emergency: false, certificates: true },
  {
    names: ['Dairy farm', 'Melkveebedrijf', 'Ferme laitière', 'Milchviehbetrieb'],
    emergency: true,
    certificates: true,
  },
  {
    names: ['Ingredients wholesaler', 'Groothandel ingrediënten', 'Grossiste en ingrédients', 'Zutatengroßhandel'],
    emergency: false,
    certificates: true,
  },
  { names: ['Fruit grower', 'Fruitteler', 'Arboriculteur', 'Obstbauer'], emergency: false, certificates: true },
  {
    names: ['Packaging manufacturer', 'Verpakkingsfabrikant', "Fabricant d'emballages", 'Verpackungshersteller'],
    emergency: false,
    certificates: false,
  },
  {
    names: ['Logistics provider', 'Logistieke dienstverlener', 'Prestataire logistique', 'Logistikdienstleister'],
    emergency: true,
    certificates: false,
  },
];

export const ITEM_TYPES: readonly Names[] = [
  ['Component', 'Component', 'Composant', 'Komponente'],
  ['Packaging', 'Verpakking', 'Emballage', 'Verpackung'],
  ['By-product', 'Bijproduct', 'Sous-produit', 'Nebenprodukt'],
];

export const CALCULATION_METHODS: readonly Names[] = [
  ['Per batch', 'Per batch', 'Par lot', 'Pro Charge'],
  ['Per unit', 'Per eenheid', 'Par unité', 'Pro Einheit'],
  ['Fixed quantity', 'Vaste hoeveelheid', 'Quantité fixe', 'Feste Menge'],
];
