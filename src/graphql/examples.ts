/** The operations GraphiQL opens with: what a newcomer needs to see the graph at work. */
export const GRAPHIQL_EXAMPLE = `# Welcome. Operations need an access token: the one in Headers below or, where there
# is none, the one the form at the bottom right gets from an API client's id and secret.
# Run an operation with the play button; Ctrl-Space completes fields.

# Products with their bill of material, the items' products and units: one round trip.
query ProductsWithStructure {
  products(first: 5, filter: { isActive: true, isSales: true }) {
    totalCount
    nodes {
      id
      reference
      name(locale: EN) { text }
      unit { reference }
      productStructure {
        quantity
        items {
          netQuantity
          grossQuantity
          product { reference name { text } }
          unit { reference }
        }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}

# Real questions: bread (in any language, any case) priced 2 to 20, made from a dough (a product
# of group 7, Doughs), with figures over every page, not just this one. \`search\` finds words
# in keys, codes, names and contacts, best matches first.
query FindProducts {
  products(first: 10, where: {
    name: { any: { contains: "BROOD" } }
    consumerPrice: { gte: 2, lte: 20 }
    productStructure: { items: { some: { product: { productGroup: { id: { equals: 7 } } } } } }
  }) {
    totalCount
    aggregate { avg { consumerPrice } min { consumerPrice } max { consumerPrice } }
    nodes { reference name { text } consumerPrice }
  }
  suppliers(first: 3, search: "bv") { nodes { reference name } }
}

# Everything needed to make 10 of a product, level by level, with losses.
query BillOfMaterial {
  product(id: 401) {
    reference
    bom(levels: 3, quantity: 10) {
      level
      product { reference name { text } }
      netQuantity
      grossQuantity
      unit { reference }
    }
  }
}

# A customer with its contacts and classification.
query Customer {
  customers(first: 1) {
    nodes {
      reference
      name
      customerType { name { text } }
      address { city countryCode }
      accountManager { username }
      commercialResolveResponsibleUsers { username }
    }
  }
}

# Every change as it commits, over Server-Sent Events. A page runs one operation at a time:
# while this one runs, the play button stops it, and so does switching to another tab of this
# page. So run it here, then open this page again in a second browser tab or window and run
# RenameUnit there (if GraphiQL opens an empty tab there, the tab beside it holds these
# operations): the change shows up here. \`after: "<cursor>"\` replays what came after a change
# you have seen.
subscription Changes {
  changes {
    cursor
    type
    id
    op
    version
    changed
    after
    actor
    at
  }
}

# A write (needs the write scope): mutations return the changed object. A second run changes
# nothing, so it writes nothing and no change is logged.
mutation RenameUnit {
  updateUnit(id: 1, input: { description: { en: "Kilogram" } }) {
    reference
    description { en nl }
  }
}
`;
