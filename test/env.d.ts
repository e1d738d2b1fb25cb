declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** An empty database of its own, for a migration's test to fill before the migration runs. */
    MIGRATION_DB: D1Database;
    MIGRATION_DB_SHOP_OF_MANY: D1Database;
    /** Base URL of the local Storefront API stand-in (test/shopify-stub.ts). */
    SHOPIFY_STUB_URL: string;
  }
}
