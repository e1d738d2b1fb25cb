// The migration that ends the old downloads list (decision 082), run on a database of its own: the
// migrations before it, rows as the old list left them, then the rest.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { isSemver } from "~/lib/semver";

const ALL = env.TEST_MIGRATIONS;
const MOVE = ALL.findIndex((migration) => migration.name.includes("one_download_system"));

interface Row {
  id: string;
  product: string;
  version: string;
  channel: string;
  notes: string;
  entitlement: string | null;
  file_name: string;
  object_key: string;
  content_type: string;
  size: number;
  sha256: string | null;
  state: string;
  published_at: number | null;
  yanked_at: number | null;
}

it("moves every file of a one-product shop into releases of that product, keeping its object, with versions that stay semver and unique", async () => {
  expect(MOVE).toBeGreaterThan(0);
  const d1 = env.MIGRATION_DB;
  await applyD1Migrations(d1, ALL.slice(0, MOVE));
  const licence = (key: string, product: string) =>
    d1
      .prepare("insert into licences (key, product, plan, owner_email, created_at) values (?, ?, 'weekly', 'buyer@example.test', 1)")
      .bind(key, product);
  const file = (
    id: string,
    version: string,
    active: boolean,
    createdAt: number,
    extra: { size?: number | null; description?: string | null; free?: boolean } = {},
  ) =>
    d1
      .prepare(
        "insert into downloadable_files (id, file_name, file_path, file_size, content_type, version, description, requires_subscription, is_active, created_at) values (?, ?, ?, ?, 'application/zip', ?, ?, ?, ?, ?)",
      )
      .bind(
        id,
        `Loader ${id}.zip`,
        `files/${id}/Loader.zip`,
        extra.size === undefined ? 1234 : extra.size,
        version,
        extra.description ?? null,
        extra.free ? 0 : 1,
        active ? 1 : 0,
        createdAt,
      );
  await d1.batch([
    licence("K-1", "Vertex Rust"),
    licence("K-2", "Vertex Rust"),
    licence("K-3", "Vertex Rust"),
    // Staff had already uploaded 2.0.0 as a release.
    d1.prepare(
      "insert into releases (id, version, channel, file_name, object_key, size, sha256, state, created_at, published_at) values ('staff', '2.0.0', 'stable', 'Setup.exe', 'releases/staff/Setup.exe', 10, 'aa', 'published', 5, 5)",
    ),
    file("listed", "1.0.0", true, 30, { description: "Run it as administrator." }),
    file("retired", "1.0.0", false, 20),
    file("clash", "2.0.0", true, 40, { size: null }),
    file("odd", "v3 final", true, 50, { free: true }),
    file("zeros", "01.2.3", true, 60),
  ]);

  await applyD1Migrations(d1, ALL);

  const rows = new Map((await d1.prepare("select * from releases").all<Row>()).results.map((row) => [row.id, row]));
  expect(rows.size).toBe(6);
  for (const row of rows.values()) {
    expect(row.product).toBe("Vertex Rust");
    expect(isSemver(row.version)).toBe(true);
  }
  expect(new Set([...rows.values()].map((row) => row.version)).size).toBe(6);
  expect(rows.get("staff")).toMatchObject({ version: "2.0.0", sha256: "aa", state: "published" });
  // A plain version kept; its object, type and words moved with it; the checksum is made on first use.
  expect(rows.get("listed")).toMatchObject({
    version: "1.0.0",
    channel: "stable",
    state: "published",
    published_at: 30,
    yanked_at: null,
    notes: "Run it as administrator.",
    file_name: "Loader listed.zip",
    object_key: "files/listed/Loader.zip",
    content_type: "application/zip",
    size: 1234,
    sha256: null,
    entitlement: null,
  });
  // An inactive file is kept, yanked; the version it shares with the active one gains build metadata.
  expect(rows.get("retired")).toMatchObject({ state: "yanked", yanked_at: 20, object_key: "files/retired/Loader.zip" });
  expect(rows.get("retired")!.version).toMatch(/^1\.0\.0\+file\.\d+$/);
  expect(rows.get("clash")).toMatchObject({ state: "published", size: 0 });
  expect(rows.get("clash")!.version).toMatch(/^2\.0\.0\+file\.\d+$/);
  // What is not a plain version sorts below every real one, and keeps its old words in the notes.
  for (const [id, old] of [
    ["odd", "v3 final"],
    ["zeros", "01.2.3"],
  ] as const) {
    expect(rows.get(id)!.version).toMatch(/^0\.0\.0\+file\.\d+$/);
    expect(rows.get(id)!.notes).toContain(old);
    expect(rows.get(id)!.state).toBe("published");
  }
  expect(await d1.prepare("select name from sqlite_master where name = 'downloadable_files'").first()).toBeNull();
});

it("leaves a shop of several products' files for staff to publish under the right product, never offering them under a guess", async () => {
  const d1 = env.MIGRATION_DB_SHOP_OF_MANY;
  await applyD1Migrations(d1, ALL.slice(0, MOVE));
  await d1.batch([
    d1.prepare(
      "insert into licences (key, product, plan, owner_email, created_at) values ('M-1', 'Vertex Rust', 'weekly', 'a@example.test', 1)",
    ),
    d1.prepare(
      "insert into licences (key, product, plan, owner_email, created_at) values ('M-2', 'Vertex Rust', 'weekly', 'b@example.test', 1)",
    ),
    d1.prepare(
      "insert into licences (key, product, plan, owner_email, created_at) values ('M-3', 'Vertex HWID Spoofer', 'weekly', 'c@example.test', 1)",
    ),
    d1.prepare(
      "insert into downloadable_files (id, file_name, file_path, file_size, content_type, version, requires_subscription, is_active, created_at) values ('spoofer', 'Spoofer.zip', 'files/spoofer/Spoofer.zip', 10, 'application/zip', '3.0.0', 1, 1, 30)",
    ),
    d1.prepare(
      "insert into downloadable_files (id, file_name, file_path, file_size, content_type, version, requires_subscription, is_active, created_at) values ('old', 'Old.zip', 'files/old/Old.zip', 10, 'application/zip', '1.0.0', 1, 0, 20)",
    ),
  ]);

  await applyD1Migrations(d1, ALL);

  const rows = new Map((await d1.prepare("select * from releases").all<Row>()).results.map((row) => [row.id, row]));
  // Kept with its object and version, waiting for staff: nothing offers it to the auto-update.
  expect(rows.get("spoofer")).toMatchObject({
    version: "3.0.0",
    state: "ready",
    published_at: null,
    object_key: "files/spoofer/Spoofer.zip",
  });
  expect(rows.get("old")).toMatchObject({ state: "yanked", published_at: null });
  expect(await d1.prepare("select count(*) as n from releases where state = 'published'").first<{ n: number }>()).toEqual({ n: 0 });
});
