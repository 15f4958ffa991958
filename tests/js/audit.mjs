// Runs graphql-http's GraphQL-over-HTTP audits against a live server; prints one JSON array of results.
// Usage: node audit.mjs http://127.0.0.1:PORT/graphql
import { auditServer } from "graphql-http";

const url = process.argv[2];
const results = await auditServer({ url });
const out = results.map((r) => ({
  id: r.id,
  name: r.name,
  status: r.status,
  reason: r.status === "ok" ? "" : String(r.reason),
}));
process.stdout.write(JSON.stringify(out));
