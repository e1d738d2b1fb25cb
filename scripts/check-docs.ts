// Keeps the docs true to the tree, as part of `npm run lint`: the README stays short enough to read
// in ten minutes, every file a doc links to exists, and the decision index lists every record with
// the status the record itself gives.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const README_MAX_LINES = 250;
const problems: string[] = [];

const readme = readFileSync("README.md", "utf8");
const lines = readme.trimEnd().split("\n").length;
if (lines > README_MAX_LINES) problems.push(`README.md has ${lines} lines; keep it to ${README_MAX_LINES} and move the rest to docs/`);

const docs = [
  "README.md",
  ...readdirSync("docs")
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
  "docs/decisions/README.md",
];
for (const doc of docs) {
  for (const [, target] of readFileSync(doc, "utf8").matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    if (!existsSync(join(dirname(doc), target!))) problems.push(`${doc} links to ${target}, which does not exist`);
  }
}

const index = readFileSync("docs/decisions/README.md", "utf8");
for (const record of readdirSync("docs/decisions").filter((name) => /^\d{3}-.*\.md$/.test(name))) {
  const status = /^Status: (.+)$/m.exec(readFileSync(join("docs/decisions", record), "utf8"))?.[1];
  if (!status) problems.push(`docs/decisions/${record} has no "Status:" line`);
  const row = index.split("\n").find((line) => line.includes(`](${record})`));
  if (!row) problems.push(`docs/decisions/README.md does not list ${record}`);
  else if (status && !row.endsWith(`| ${status} |`))
    problems.push(`docs/decisions/README.md gives ${record} another status than the record's own`);
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
