// Lint: TypeScript's recommended rules, React hooks, and the boundaries that keep the codebase in
// one shape (docs/architecture.md): which domain of app/server may use which, who writes the tables
// that hold keys, licences and money, one job registry, and routes grouped by area. Unused exports
// and files are found by knip, and layout by Prettier (`npm run lint` runs all three).
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import { readFileSync } from "node:fs";
import tseslint from "typescript-eslint";

// app/server's domains and the domains each may use. A domain holds everything about one part of
// the product, the member's half and the staff's half; who may do what is a capability, not a
// folder. The graph must have no circles (checked below, when lint starts); `jobs` composes them all.
const DOMAIN_USES = {
  platform: [],
  // The blocklist and the fraud settings: "is this blocked?" is asked by many domains, so it sits low.
  blocks: ["platform"],
  // Webhooks out (decisions 101, 102): every domain that records a change may emit its event.
  webhooks: ["platform"],
  accounts: ["platform", "blocks"],
  catalogue: ["platform"],
  affiliates: ["platform", "webhooks"],
  legal: ["platform"],
  status: ["platform"],
  audit: ["platform", "accounts"],
  chat: ["platform", "accounts", "catalogue", "releases"],
  discord: ["platform", "accounts", "blocks"],
  reviews: ["platform", "accounts", "catalogue", "webhooks"],
  licences: ["platform", "catalogue", "blocks", "webhooks"],
  releases: ["platform", "catalogue", "licences"],
  keys: ["platform", "catalogue", "affiliates", "licences", "webhooks"],
  resellers: ["platform", "catalogue", "affiliates", "licences", "keys"],
  // Renewals that keep the key (decision 090): the payment paths (orders, crypto) call it; it
  // extends through licences and takes balance payments through resellers.
  renewals: ["platform", "catalogue", "affiliates", "licences", "resellers", "webhooks"],
  crypto: ["platform", "catalogue", "affiliates", "keys", "resellers", "renewals", "webhooks"],
  disputes: ["platform", "affiliates", "licences", "resellers", "webhooks"],
  orders: ["platform", "catalogue", "affiliates", "audit", "licences", "keys", "crypto", "renewals", "blocks", "disputes", "webhooks"],
  replacements: ["platform", "licences", "orders"],
  customers: ["platform", "accounts", "licences", "resellers", "blocks"],
  search: ["platform", "customers", "licences", "orders"],
  // The live shop's health, from inside (decision 098): every part's settings and machinery.
  health: ["platform", "accounts", "crypto", "discord", "licences"],
  // The seller API (decision 097): resellers' and staff's programs reach the panel's and the back
  // office's own functions for keys and the balance.
  seller: ["platform", "accounts", "catalogue", "keys", "licences", "renewals", "resellers"],
  // Members' own data (decision 099): its export, and the deletion every domain writes a part of.
  privacy: [
    "platform",
    "accounts",
    "affiliates",
    "catalogue",
    "chat",
    "crypto",
    "discord",
    "keys",
    "licences",
    "orders",
    "replacements",
    "reviews",
  ],
};
const DOMAINS = [...Object.keys(DOMAIN_USES), "jobs"];
// A circle would let two domains lean on each other: lint refuses to start with one.
for (const start of Object.keys(DOMAIN_USES)) {
  const reached = new Set();
  const visit = (domain) => {
    for (const used of DOMAIN_USES[domain] ?? []) {
      if (used === start) throw new Error(`DOMAIN_USES has a circle through ${start} and ${domain}`);
      if (reached.has(used)) continue;
      reached.add(used);
      visit(used);
    }
  };
  visit(start);
}

// app/routes' areas: each folder holds its route modules and, in +shared/, the parts only they use.
const AREAS = ["storefront", "auth", "hub", "back-office", "api", "dev"];

/** Import specifiers that reach `target` under app/, whether written with "~/" or relatively. */
const reaching = (target) => [`~/${target}`, `~/${target}/**`, `**/app/${target}`, `**/app/${target}/**`];
// From a domain folder, or from a folder inside one (platform/db).
const relativeTo = (folder) => [`../${folder}/**`, `../../${folder}/**`, `../../server/${folder}/**`];

// Tables with one owner (decision 052): only the owner's files write them; the rest of the code
// calls the owner. Caught: query-builder writes (`db.update(productCodes)`), raw SQL that writes
// `${productCodes}` or names the table, and the table imported under another name.
const OWNED_TABLES = [
  {
    variables: ["productCodes"],
    tables: ["product_codes"],
    owner: ["app/server/keys/**"],
    message:
      "A key is stocked, claimed, sold, revoked and released by app/server/keys (decision 052): call it instead of writing product_codes.",
  },
  {
    variables: ["licences", "userSubscriptions", "licenceRenewals"],
    tables: ["licences", "user_subscriptions", "licence_renewals"],
    owner: ["app/server/licences/**"],
    message:
      "Licences, the subscriptions beside them and the time renewals added are written by app/server/licences (its licence-records module for the key path, licence-renewals for renewals): call it instead.",
  },
  {
    variables: ["renewalReminders", "reminderOptOuts", "autoRenewals"],
    tables: ["renewal_reminders", "reminder_opt_outs", "auto_renewals"],
    owner: ["app/server/renewals/**"],
    message: "Renewal reminders, their opt-outs and auto-renewals are written by app/server/renewals (decision 091): call it instead.",
  },
  {
    variables: ["resellerAccounts", "resellerLedger"],
    tables: ["reseller_accounts", "reseller_ledger"],
    owner: ["app/server/resellers/reseller-balance.server.ts"],
    message:
      "The reseller balance and its ledger are written by app/server/resellers/reseller-balance.server.ts (decision 052): call it instead.",
  },
  {
    variables: ["affiliateLedger"],
    tables: ["affiliate_ledger"],
    owner: ["app/server/affiliates/ledger.server.ts"],
    message: "Affiliate money moves only as rows written by app/server/affiliates/ledger.server.ts (decision 060): call it instead.",
  },
  {
    variables: ["reviewModeration"],
    tables: ["review_moderation"],
    owner: ["app/server/reviews/review-moderation.server.ts"],
    message: "Staff's hiding of reviews is written only by app/server/reviews/review-moderation.server.ts (decision 083): call it instead.",
  },
  {
    variables: ["blocks", "blockListVersion"],
    tables: ["blocks", "block_list_version"],
    owner: ["app/server/blocks/blocks.server.ts"],
    message:
      "The blocklist is changed only by app/server/blocks/blocks.server.ts, which counts its version up with every change the licence check must see (decision 112): call it instead.",
  },
];
// Every job kind's payload is declared once, in the job registry; a second declaration of a kind
// (a valibot schema or a TypeScript type whose `kind` is a job's) is refused everywhere else.
const JOB_REGISTRY = "app/server/platform/job-registry.server.ts";
const JOB_KINDS = [...readFileSync(JOB_REGISTRY, "utf8").matchAll(/kind: v\.literal\("([\w-]+)"\)/g)].map((match) => match[1]);
const JOB_DECLARED_ONCE = [
  `Property[key.name='kind'] > CallExpression[callee.property.name='literal'] > Literal[value=/^(${JOB_KINDS.join("|")})$/]`,
  `TSPropertySignature[key.name='kind'] TSLiteralType > Literal[value=/^(${JOB_KINDS.join("|")})$/]`,
].map((selector) => ({
  selector,
  message: `Job payloads are declared once, in ${JOB_REGISTRY}: use JobOf<"kind"> and JobQueue<"kind"> from it.`,
}));

const WRITE = String.raw`(insert\s+(or\s+\w+\s+)?into|update|delete\s+from)`;
/** no-restricted-syntax entries that refuse writes to one owned table group. */
function writesTo({ variables, tables, message }) {
  const names = `/^(${variables.join("|")})$/`;
  const sqlNames = String.raw`/\b${WRITE}\s+["\x60]?(${tables.join("|")})\b/i`;
  // A raw template writes the table when the text before its n-th interpolation ends in a write.
  const rawWrites = Array.from(
    { length: 12 },
    (_, n) =>
      String.raw`TemplateLiteral:has(> TemplateElement:nth-child(${n + 1})[value.raw=/\b${WRITE}\s*$/i]):has(> Identifier:nth-child(${n + 1})[name=${names}])`,
  );
  return [
    `CallExpression[callee.property.name=/^(insert|update|delete)$/][arguments.0.name=${names}]`,
    ...rawWrites,
    `Literal[value=${sqlNames}]`,
    `TemplateElement[value.raw=${sqlNames}]`,
    `ImportSpecifier[imported.name=${names}][local.name!=${names}]`,
  ].map((selector) => ({ selector, message }));
}

// Domain code takes plain values and returns data (decision 062): requests, responses, headers,
// cookies and toasts belong to the edge (app/http and the Worker's entry points). The Cache API
// adapter is the one file that must build a Response to store a value.
const EDGE_ONLY = "app/server is domain code: Request, Response, headers, cookies and toasts belong to app/http (decision 062).";
const EDGE_SYNTAX = [
  "NewExpression[callee.name=/^(Request|Response|Headers)$/]",
  "MemberExpression[object.name=/^(Request|Response)$/]",
  "TSTypeReference[typeName.name=/^(Request|Response|Headers|HeadersInit)$/]",
  "Literal[value=/^(set-cookie|cookie|cf-connecting-ip|user-agent)$/i]",
  "Property[key.name='toast']",
].map((selector) => ({ selector, message: EDGE_ONLY }));
const RESPONSE_ADAPTERS = ["app/server/platform/json-cache.server.ts"];

// The app's links come from ~/components/link, which draws a plain path's link on the server
// without React Router's per-link work (decision 124).
const ROUTER_LINKS = {
  name: "react-router",
  importNames: ["Link", "NavLink"],
  message: "Import Link and NavLink from ~/components/link (decision 124).",
};

const restrict = (files, patterns) => ({
  files,
  rules: { "no-restricted-imports": ["error", { paths: [ROUTER_LINKS], patterns }] },
});

const SERVER_ONLY = {
  group: [...reaching("server"), ...reaching("http"), "**/*.server", "**/*.server.*"],
  message: "app/lib, app/components and a route's parts run in the browser: no server-only imports.",
};
const TABLES = {
  group: ["**/platform/db/schema.server", "**/platform/db/chat-schema.server"],
  message: "Routes call domain functions; table definitions stay in app/server.",
};
// A component never imports a route module: what a page loaded reaches its parts through their props.
const NO_ROUTES = "Components take a route's data through their props: no imports of route modules (app/root, app/routes).";

export default tseslint.config(
  {
    ignores: [
      "build/",
      ".react-router/",
      "**/.wrangler/",
      "node_modules/",
      "worker-configuration.d.ts",
      "migrations/",
      "public/",
      "test-results/",
      "playwright-report/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.serviceworker } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // The React Compiler's advisory rules do not apply: the app does not use the compiler.
      "react-hooks/refs": "off",
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/purity": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-console": ["error", { allow: ["error", "warn", "info"] }],
    },
  },
  // Command-line tools talk to the terminal.
  { files: ["bench/**", "scripts/**"], rules: { "no-console": "off" } },
  // Ambient declarations cannot use import statements without becoming modules.
  { files: ["**/*.d.ts"], rules: { "@typescript-eslint/consistent-type-imports": "off" } },
  { files: ["app/**/*.{ts,tsx}"], rules: { "no-restricted-imports": ["error", { paths: [ROUTER_LINKS] }] } },
  // Routes answer through app/http and call domain functions; they never touch tables. A route's
  // parts serve its own area: a part that two areas use belongs in app/components.
  ...AREAS.map((area) =>
    restrict(
      [`app/routes/${area}/**`],
      [
        TABLES,
        {
          regex: `^~/routes/(?!${area}/)[^/]+/\\+shared/`,
          message: `app/routes/${area} uses its own parts; a part two areas share belongs in app/components.`,
        },
      ],
    ),
  ),
  // Code that runs in the browser formats numbers and dates without the browser's locale data: its
  // first use blocks the main thread for tens of milliseconds (decision 041). ~/lib/format has the
  // shop's formats.
  {
    files: ["app/lib/**", "app/components/**", "app/routes/**", "app/root.tsx"],
    ignores: ["**/*.server.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        ...["toLocaleString", "toLocaleDateString", "toLocaleTimeString", "localeCompare"].map((property) => ({
          property,
          message: "Loads the browser's locale data on first use; use ~/lib/format.",
        })),
      ],
      "no-restricted-globals": ["error", { name: "Intl", message: "Loads the browser's locale data on first use; use ~/lib/format." }],
    },
  },
  // The Worker's entry is evaluated at every cold start: it imports statically only its paths, the
  // loader of first use and the Durable Objects' classes; everything else, the page's security
  // headers and cache included, it loads on first use with import(), so a licence check never
  // evaluates the pages (decisions 107, 116). Types cost nothing.
  {
    files: ["workers/app.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!~/lib/entry-paths$|~/server/platform/on-first-use\\.server$|\\./(chat-room|key-watch)$)",
              allowTypeImports: true,
              message: "The Worker's entry loads this on first use: import() it where it is needed (decision 107).",
            },
          ],
        },
      ],
    },
  },
  // Browser-safe code never reaches server-only code, nor a route module.
  restrict(
    ["app/lib/**", "app/components/**"],
    [SERVER_ONLY, { group: ["~/root", "**/root", "**/routes", "**/routes/**"], message: NO_ROUTES }],
  ),
  // A route's parts (app/routes/<area>/+shared) likewise; they reach their own folder by "./" and
  // everything else by its "~/" path, so no relative path can climb into a route module.
  ...AREAS.map((area) =>
    restrict(
      [`app/routes/${area}/+shared/**`],
      [
        SERVER_ONLY,
        {
          regex: `^(~/root$|~/routes/(?!${area}/\\+shared/)|\\.\\./)`,
          message: `${NO_ROUTES} Parts of app/routes/${area} import their own folder by "./", anything else by its "~/" path, and only their own area's parts.`,
        },
      ],
    ),
  ),
  // Each owned table is written only by its owner (the tests set up rows as they need).
  {
    files: ["app/**/*.{ts,tsx}", "workers/**/*.ts"],
    ignores: OWNED_TABLES.flatMap(({ owner }) => owner),
    rules: { "no-restricted-syntax": ["error", ...OWNED_TABLES.flatMap(writesTo), ...JOB_DECLARED_ONCE] },
  },
  {
    files: ["app/server/**/*.ts"],
    ignores: [...OWNED_TABLES.flatMap(({ owner }) => owner), ...RESPONSE_ADAPTERS, JOB_REGISTRY],
    rules: { "no-restricted-syntax": ["error", ...OWNED_TABLES.flatMap(writesTo), ...EDGE_SYNTAX, ...JOB_DECLARED_ONCE] },
  },
  ...OWNED_TABLES.map((owned) => ({
    files: owned.owner,
    rules: {
      "no-restricted-syntax": [
        "error",
        ...OWNED_TABLES.filter((other) => other !== owned).flatMap(writesTo),
        ...EDGE_SYNTAX,
        ...JOB_DECLARED_ONCE,
      ],
    },
  })),
  // The registry itself: the one place job payloads are declared.
  { files: [JOB_REGISTRY], rules: { "no-restricted-syntax": ["error", ...OWNED_TABLES.flatMap(writesTo), ...EDGE_SYNTAX] } },
  // Domain code knows nothing of the route edge, the Worker entry points or UI words, and each
  // domain imports only the domains it may use.
  ...DOMAINS.map((domain) => {
    const allowed = DOMAIN_USES[domain] ?? DOMAINS.filter((other) => other !== domain);
    const forbidden = DOMAINS.filter((other) => other !== domain && !allowed.includes(other));
    return restrict(
      [`app/server/${domain}/**`],
      [
        {
          group: ["**/workers/**", ...reaching("http"), ...reaching("routes"), ...reaching("components")],
          message: "app/server is domain code: no Worker, route or UI imports.",
        },
        { group: ["~/lib/toast", "**/lib/toast"], message: "Domain code returns a Result; the route edge chooses the toast." },
        ...(forbidden.length > 0
          ? [
              {
                group: forbidden.flatMap((folder) => [...reaching(`server/${folder}`), ...relativeTo(folder)]),
                message: `app/server/${domain} may use only ${allowed.join(", ") || "no other domain"} (DOMAIN_USES in eslint.config.js).`,
              },
            ]
          : []),
      ],
    );
  }),
);
