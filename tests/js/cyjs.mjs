// Loads a Cytoscape JSON file into cytoscape.js (headless) and prints what it read, as JSON.
// Usage: node cyjs.mjs FILE.cyjs
import { readFileSync } from "node:fs";
import cytoscape from "cytoscape";

const data = JSON.parse(readFileSync(process.argv[2], "utf8"));
const cy = cytoscape({ headless: true });
cy.json(data);
process.stdout.write(JSON.stringify({
  data: cy.data(),
  nodes: cy.nodes().length,
  edges: cy.edges().length,
  labels: cy.nodes().map((n) => n.data("label")).slice(0, 5),
  paperNeighbours: cy.nodes().filter((n) => n.data("type") !== "Paper")
    .map((n) => n.neighborhood().nodes().filter((m) => m.data("type") === "Paper").length),
}));
