// GraphQL Code Generator configuration. It arrives with the GraphQL API: it will print the
// committed schema.graphql and the typed test documents. There is no schema to generate from yet.
export {};
