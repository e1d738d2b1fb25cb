import { cloudflare } from "@cloudflare/vite-plugin";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig, type Plugin } from "vite";

// Local workerd (dev server, preview, tests) gives requests the placeholder `request.cf` instead
// of downloading Cloudflare's at every start, which fails with a DNS error when offline. Nothing
// in the app reads `request.cf`. CLOUDFLARE_CF_FETCH_ENABLED=true in the environment fetches it.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

/** SQL files import as their text (the chat room's Durable Object migrations). */
export function sqlAsText(): Plugin {
  return {
    name: "sql-as-text",
    transform(code, id) {
      if (id.endsWith(".sql")) return { code: `export default ${JSON.stringify(code)};`, map: null };
    },
  };
}

const MIGRATION_NAMES = "virtual:d1-migrations";

/**
 * The D1 migrations' file names as the module `virtual:d1-migrations`: the Worker compares them
 * with the database's list of applied ones to tell the Health page and the doctor what is pending.
 */
export function d1MigrationNames(): Plugin {
  return {
    name: "d1-migration-names",
    resolveId: (source) => (source === MIGRATION_NAMES ? `\0${MIGRATION_NAMES}` : undefined),
    load(id) {
      if (id !== `\0${MIGRATION_NAMES}`) return undefined;
      const names = readdirSync("migrations")
        .filter((file) => file.endsWith(".sql"))
        .sort();
      return `export default ${JSON.stringify(names)};`;
    },
  };
}

/**
 * The production Worker with React's streaming server renderer only. `react-dom/server` for the
 * edge also bundles the legacy string renderer (renderToString), which nothing here calls and which
 * is a third of React's server code in the upload (decision 107). Development and tests keep the
 * package's own entry.
 */
function streamingRendererOnly(): Plugin {
  return {
    name: "streaming-renderer-only",
    apply: "build",
    enforce: "pre",
    applyToEnvironment: (environment) => environment.name === "ssr",
    resolveId(source) {
      // The package's exports do not name the file: it is taken by its path.
      if (source === "react-dom/server") return resolve("node_modules/react-dom/cjs/react-dom-server.edge.production.js");
    },
  };
}

/** The WebAuthn library's files that parse certificate chains, as its modules import them. */
const WEBAUTHN_CERTIFICATE_CODE =
  /(validateCertificatePath|getCertificateInfo|validateExtFIDOGenCEAAGUID|convertX509PublicKeyToCOSE|isCertRevoked|unwrapEC2Signature|verifyAttestation(FIDOU2F|AndroidKey|AndroidSafetyNet|Apple|TPM)|verifyMDSBlob|defaultRootCerts\/\w+)\.js$/;

/**
 * On the server, code the Worker never runs is replaced by a stand-in that refuses (decision 115):
 * the WebAuthn library's certificate-chain code by app/server/accounts/webauthn-certificates.server.ts
 * (the shop keeps an attestation that rests on a chain as none, so the X.509 and ASN.1 parsers it
 * pulls in, a sixth of the upload, never run; the DER signature reading every sign-in needs is
 * done there by the curve library), and markdown-it's link finder by app/server/platform/linkify-off.server.ts
 * (Markdown is rendered with `linkify: false`). Arctic's copy of the SHA-2 family is replaced by the
 * hash library's SHA-256 (app/server/accounts/oslo-sha2.server.ts, decision 119): the same function, one copy.
 */
export function serverStandIns(): Plugin {
  return {
    name: "server-stand-ins",
    enforce: "pre",
    applyToEnvironment: (environment) => environment.config.consumer === "server",
    resolveId: {
      filter: { id: [/^linkify-it$/, /^@oslojs\/crypto\/sha2$/, WEBAUTHN_CERTIFICATE_CODE] },
      handler(source, importer) {
        if (source === "linkify-it" && importer?.includes("markdown-it")) return resolve("app/server/platform/linkify-off.server.ts");
        if (source === "@oslojs/crypto/sha2" && importer?.includes("arctic")) return resolve("app/server/accounts/oslo-sha2.server.ts");
        if (importer?.includes("@simplewebauthn") && source.startsWith(".") && WEBAUTHN_CERTIFICATE_CODE.test(source)) {
          return resolve("app/server/accounts/webauthn-certificates.server.ts");
        }
        return undefined;
      },
    },
  };
}

const ICON_EXPORT = /^export \{ default as (\w+) \} from "(lucide-react\/icons\/[\w-]+)";$/gm;

/**
 * On the server, the icons of app/components/icons.ts are drawn by `staticIcon` (their shapes
 * written once as markup, decision 100) instead of Lucide's components; the browser draws each
 * Lucide icon file's icon with it too (below), in the chunk of the pages that draw it.
 */
export function staticIconsOnTheServer(): Plugin {
  return {
    name: "static-icons-on-the-server",
    applyToEnvironment: (environment) => environment.config.consumer === "server",
    transform(code, id) {
      if (!id.endsWith("/app/components/icons.ts")) return undefined;
      const icons = [...code.matchAll(ICON_EXPORT)];
      const drawn = icons.map(
        ([, name, file], i) => `import { __iconData as icon${i} } from "${file}";\nexport const ${name} = staticIcon(icon${i});`,
      );
      return { code: `import { staticIcon } from "./static-icon";\n${drawn.join("\n")}\n`, map: null };
    },
  };
}

/**
 * In the browser, each Lucide icon file draws its icon with `staticIcon` (as the server does) in
 * place of Lucide's component factory: the same markup, and every page is spared the factory. The
 * development server serves the files themselves (not pre-bundled), each with a version query.
 */
function staticIconsInTheBrowser(): Plugin {
  const staticIconModule = resolve("app/components/static-icon.ts");
  return {
    name: "static-icons-in-the-browser",
    applyToEnvironment: (environment) => environment.config.consumer === "client",
    transform: {
      filter: { id: /lucide-react[\\/]dist[\\/]esm[\\/]icons[\\/][\w-]+\.mjs(\?v=\w+)?$/ },
      handler(code, id) {
        const factory = "import createLucideIcon from '../createLucideIcon.mjs';";
        if (!code.includes(factory)) throw new Error(`${id}: Lucide's icon file no longer imports its factory as expected`);
        return {
          code: code.replace(factory, `import { staticIcon as createLucideIcon } from ${JSON.stringify(staticIconModule)};`),
          map: null,
        };
      },
    },
  };
}

/**
 * A server-side plugin that writes calls to `helper` (which it imports as `imported`) into React
 * Router's own files: in each file named (its path under `lib/`, in the production and development
 * builds), each text found is replaced by the text written. Every text must be found exactly once,
 * or the build stops with a message: an upgrade that changes one is brought in line by hand.
 */
function reactRouterRewrite(
  name: string,
  helper: string,
  imported: string[],
  files: Record<string, [found: string, written: string][]>,
): Plugin {
  const module = JSON.stringify(resolve(helper));
  const paths = Object.keys(files).map((path) => path.replaceAll(".", "\\.").replaceAll("/", "[\\\\/]"));
  const file = new RegExp(`react-router[\\\\/]dist[\\\\/](?:production|development)[\\\\/]lib[\\\\/](${paths.join("|")})$`);
  return {
    name,
    applyToEnvironment: (environment) => environment.config.consumer === "server",
    transform: {
      filter: { id: file },
      handler(code, id) {
        let text = code;
        for (const [found, written] of files[file.exec(id)![1]!.replaceAll("\\", "/")]!) {
          const at = text.indexOf(found);
          if (at < 0 || text.indexOf(found, at + 1) >= 0) throw new Error(`${id}: React Router's file no longer reads as ${name} expects`);
          text = text.slice(0, at) + written + text.slice(at + found.length);
        }
        return { code: `import { ${imported.join(", ")} } from ${module};\n${text}`, map: null };
      },
    },
  };
}

const MATCHER_UPDATE = "\t\tthis.#branches = flattenAndRankRoutes(routes);\n";
const MATCHER_MATCH = "\t\treturn matchRoutesImpl(this.#routes, locationArg, this.#basename, allowPartial, this.#branches);\n";

/**
 * On the server, React Router's matcher remembers the matches of the paths it has matched
 * (app/server/platform/route-matches.server.ts, decision 120): its own matching tries every branch
 * of the route table until one fits, two or three times a request.
 */
export function memoisedRouteMatching(): Plugin {
  return reactRouterRewrite(
    "memoised-route-matching",
    "app/server/platform/route-matches.server.ts",
    ["forgetMatches", "rememberedMatch"],
    {
      "router/matcher.js": [
        [MATCHER_UPDATE, `${MATCHER_UPDATE}\t\tforgetMatches(this);\n`],
        [
          MATCHER_MATCH,
          `\t\treturn rememberedMatch(this, locationArg, allowPartial, () => matchRoutesImpl(this.#routes, locationArg, this.#basename, allowPartial, this.#branches));\n`,
        ],
      ],
    },
  );
}

/** `code` with the function declared as `name` (its whole body, braces matched) replaced by `replacement`. */
function withFunctionReplaced(code: string, name: string, replacement: string, id: string): string {
  const start = code.indexOf(`function ${name}(`);
  if (start < 0 || code.indexOf(`function ${name}(`, start + 1) >= 0) throw new Error(`${id}: ${name} is not declared once`);
  let depth = 0;
  for (let at = code.indexOf("{", start); at < code.length; at++) {
    if (code[at] === "{") depth++;
    else if (code[at] === "}" && --depth === 0) return code.slice(0, start) + replacement + code.slice(at + 1);
  }
  throw new Error(`${id}: ${name}'s body does not end`);
}

/**
 * On the server, the route modules by id, the routes a document's render draws and the static
 * router's data routes are made once per build (app/server/platform/render-routes.server.ts,
 * decision 138) instead of from every route of the app for every document.
 */
export function renderRoutesBuiltOnce(): Plugin {
  return reactRouterRewrite("render-routes-built-once", "app/server/platform/render-routes.server.ts", ["derivedOnce", "madeOnce"], {
    "server-runtime/entry.js": [
      [
        "function createEntryRouteModules(manifest) {\n",
        'function createEntryRouteModules(manifest) {\n\treturn madeOnce([manifest], "route modules", () => entryRouteModulesEachTime(manifest));\n}\nfunction entryRouteModulesEachTime(manifest) {\n',
      ],
    ],
    "dom/ssr/server.js": [
      [
        "\tlet routes = createServerRoutes(manifest.routes, routeModules, context.future, context.isSpaMode);\n",
        '\tlet routes = madeOnce([manifest.routes, routeModules, context.future], context.isSpaMode ? "spa" : "server", () => createServerRoutes(manifest.routes, routeModules, context.future, context.isSpaMode));\n',
      ],
    ],
    "dom/server.js": [
      [
        "\tlet manifest = {};\n\tlet dataRoutes = convertRoutesToDataRoutes(routes, void 0, void 0, manifest);\n",
        '\tlet { manifest, dataRoutes } = derivedOnce(routes, "data routes", () => {\n\t\tlet manifest = {};\n\t\treturn { manifest, dataRoutes: convertRoutesToDataRoutes(routes, void 0, void 0, manifest) };\n\t});\n',
      ],
    ],
  });
}

// React's server renderer for the edge, written as text: every piece of markup stays a string and
// each flush is encoded once, instead of each piece (an attribute's name, its value, a tag) being
// encoded as it is written. The bytes are the same; byte lengths, which decide whether a Suspense
// boundary is outlined, are counted in UTF-8 as before.
const RENDERER_AS_TEXT = {
  writeChunk: 'var writtenText = "";\nfunction writeChunk(destination, chunk) {\n  writtenText += chunk;\n}',
  completeWriting:
    'function completeWriting(destination) {\n  "" !== writtenText && (destination.enqueue(textEncoder.encode(writtenText)), (writtenText = ""));\n}',
  stringToChunk: "function stringToChunk(content) {\n  return content;\n}",
  stringToPrecomputedChunk: "function stringToPrecomputedChunk(content) {\n  return content;\n}",
  byteLengthOfChunk:
    "function byteLengthOfChunk(chunk) {\n  return /[^\\0-\\x7f]/.test(chunk) ? textEncoder.encode(chunk).byteLength : chunk.length;\n}",
};
const SEGMENT_BYTES = /for \(var segmentByteSize = 0, i = 0; i < segment\.length; i\+\+\)\s*segmentByteSize \+= segment\[i\]\.byteLength;/;
const VIEW_RESET = /currentView = new Uint8Array\(4096\);/g;

/**
 * The production Worker's React streaming renderer keeps what it writes as text and encodes it once
 * per flush (decision 121): the edge build encodes every attribute's name and value, every tag and
 * text as its own Uint8Array, a sixth of a hub page's render. The build stops with a message if
 * React's file no longer reads as expected. Development and tests keep React's own (its development
 * build, which the Worker suite loads outside Vite's transforms).
 */
function reactRendererAsText(): Plugin {
  return {
    name: "react-renderer-as-text",
    apply: "build",
    applyToEnvironment: (environment) => environment.name === "ssr",
    transform: {
      filter: { id: /react-dom[\\/]cjs[\\/]react-dom-server\.edge\.production\.js$/ },
      handler(code, id) {
        let text = code;
        for (const [name, replacement] of Object.entries(RENDERER_AS_TEXT)) text = withFunctionReplaced(text, name, replacement, id);
        const resets = text.match(VIEW_RESET)?.length ?? 0;
        if (!SEGMENT_BYTES.test(text) || resets !== 2)
          throw new Error(`${id}: React's renderer no longer reads as the text stream expects`);
        text = text
          .replace(SEGMENT_BYTES, 'var segmentByteSize = byteLengthOfChunk(segment.join(""));')
          .replace(VIEW_RESET, 'currentView = new Uint8Array(4096);\n  writtenText = "";');
        return { code: text, map: null };
      },
    },
  };
}

/** Whether wrangler.toml has the Worker's source maps uploaded with it (`upload_source_maps`). */
const UPLOADS_SOURCE_MAPS = /^\s*upload_source_maps\s*=\s*true\b/m.test(readFileSync("wrangler.toml", "utf8"));

export default defineConfig(({ command }) => ({
  plugins: [
    // LOCAL_STATE_DIR serves another local state than .wrangler/state: a restored backup, or the
    // restore drill's own (docs/backups.md).
    cloudflare({
      viteEnvironment: { name: "ssr" },
      persistState: process.env.LOCAL_STATE_DIR ? { path: process.env.LOCAL_STATE_DIR } : true,
      // The dev server answers its own modules (/@vite/client, /app/…) and public/ before the Worker
      // runs; wrangler.toml's "/*" (every path runs the Worker first, decision 122) would hand those
      // to the Worker too. The build keeps wrangler.toml's patterns.
      ...(command === "serve" ? { config: ({ assets }) => ({ assets: { ...assets, run_worker_first: false } }) } : {}),
    }),
    tailwindcss(),
    reactRouter(),
    sqlAsText(),
    d1MigrationNames(),
    streamingRendererOnly(),
    staticIconsOnTheServer(),
    staticIconsInTheBrowser(),
    serverStandIns(),
    memoisedRouteMatching(),
    renderRoutesBuiltOnce(),
    reactRendererAsText(),
  ],
  resolve: { tsconfigPaths: true },
  environments: {
    client: {
      // Lucide's icon files are served as they are, not pre-bundled, so that the development server's
      // browser draws them with `staticIcon` too (staticIconsInTheBrowser): the markup the server sent.
      optimizeDeps: { exclude: ["lucide-react"] },
      build: {
        rolldownOptions: {
          output: {
            // A shared chunk is named after every page that uses it, and each file that imports it
            // spells that name out: a short name (its group and a hash) is less to download.
            chunkFileNames: (chunk) => `assets/${chunk.name.split("~")[0]}-[hash].js`,
            // A few larger chunks instead of dozens of tiny ones: every request costs a round
            // trip on a phone, and the first page needs nearly all of the shared code anyway.
            codeSplitting: {
              groups: [
                { name: "framework", test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/, priority: 7 },
                // The WebAuthn library stays out: it is imported only when a passkey button is
                // pressed, and in the shared chunk every page would download it. So does the schema
                // library: it goes with the forms that check their input in the browser.
                {
                  name: "vendor",
                  test: /node_modules[\\/](?!@simplewebauthn[\\/]|valibot[\\/]|lucide-react[\\/]dist[\\/]esm[\\/]icons[\\/])/,
                  priority: 6,
                },
                // The shell every page draws (navigation, cart, toasts, error pages) and
                // what it imports: one chunk, since every page needs it. The home page needs nothing
                // more of the shared code.
                {
                  name: "ui",
                  test: /[\\/]app[\\/](components[\\/](site-nav|hydrate-on-view|cart[\\/](?!cart-panel)|toaster|viewer|error-boundary|thrown-body|document-scripts|shop|ui[\\/](button|card|input-class))|lib[\\/](cart|viewer|toast|brand|plans|intro|stylesheet))\./,
                  priority: 5,
                },
                // Each icon the shell does not draw goes with the pages that draw it: icons drawn by
                // the same set of pages share a chunk, so no page downloads the whole set.
                {
                  name: "icons",
                  test: /node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/]icons[\\/]/,
                  entriesAware: true,
                  entriesAwareMergeThreshold: 800,
                  priority: 4,
                },
                // The forms' schemas apart from the rest: merged into a small shared chunk, a schema
                // pulled its page's neighbours into the schema library's download (the product page
                // fetched it for the status page's form it never shows).
                {
                  name: "schemas",
                  test: /[\\/]app[\\/]lib[\\/]schemas[\\/](?!passkeys\.)/,
                  entriesAware: true,
                  priority: 3,
                },
                // The rest of the shared components and browser-safe code, for the pages that use
                // them (not the home page). Passkey code (the prompt) and the schemas go with the few
                // pages that show them; route-only parts (app/routes/*/+shared) go with their routes.
                // Split like the icons, by the set of pages that use them: in one chunk, the product
                // page downloaded the dashboard's shell and charts with it (decision 106).
                {
                  name: "shared",
                  test: /[\\/]app[\\/](components|lib)[\\/](?!security[\\/]|schemas[\\/]passkeys\.|cart[\\/]cart-panel\.)/,
                  entriesAware: true,
                  entriesAwareMergeThreshold: 1000,
                  priority: 2,
                },
                // The back office's parts go only to the staff pages that show them. A group takes the
                // modules it imports too, so this one comes after the shared chunks: it keeps only
                // what nothing else claimed.
                { name: "back-office", test: /[\\/]app[\\/]routes[\\/]back-office[\\/]\+shared[\\/]/, priority: 1 },
              ],
            },
          },
        },
      },
    },
    ssr: {
      build: {
        // Source maps are written beside the build for reading profiles and stack traces, and the
        // modules do not point at them, unless wrangler.toml uploads them (then each must).
        sourcemap: UPLOADS_SOURCE_MAPS ? true : "hidden",
        // The Worker is minified (names kept, so stack traces and error names still read): the upload
        // stays under its size limit and a cold start parses less (decision 107).
        minify: true,
        rolldownOptions: {
          // The Worker carries the first screen's stylesheet as text (first-screen.css?inline, decision 106).
          // Tailwind's compiler makes no source map for it, so the bundler warns that the map of
          // that one string may be off; the warning is about nothing that can be debugged.
          onLog(level, log, handler) {
            if (log.code === "SOURCEMAP_BROKEN" && log.plugin?.startsWith("@tailwindcss/vite")) return;
            // Components the browser fetches on demand are imported lazily, and the server build
            // imports them statically to render them, so the bundler's note that it cannot split
            // them there says nothing. What the Worker loads on first use (decision 107) is checked
            // by npm run bench:startup instead.
            if (log.code === "INEFFECTIVE_DYNAMIC_IMPORT") return;
            handler(level, log);
          },
        },
      },
    },
  },
  server: { port: 5173, strictPort: true },
  preview: { port: 4173, strictPort: true },
}));
