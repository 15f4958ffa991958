// paperkg: start GraphiQL against this server's /graphql (no inline script, so the page's CSP holds).
"use strict";
(() => {
  const EXAMPLE = `# paperkg GraphQL. Run with Ctrl-Enter; Ctrl-Space completes.
{
  papers(dataset: "imagenet", first: 5) { totalCount edges { node { id title year } } }
  entity(name: "ImageNet") { name type paperCount trend { year papers } }
}
`;
  const params = new URLSearchParams(location.search);
  const fetcher = GraphiQL.createFetcher({ url: `${location.origin}/graphql` });
  function App() {
    const [query, setQuery] = React.useState(params.get("q") || EXAMPLE);
    return React.createElement(GraphiQL, {
      fetcher, query, defaultEditorToolsVisibility: true, isHeadersEditorEnabled: true,
      onEditQuery: (q) => {
        setQuery(q);
        const p = new URLSearchParams(location.search);
        p.set("q", q);
        history.replaceState(null, "", `?${p}`);
      },
    });
  }
  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(App));
})();
