declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Base URL of the local Storefront API stand-in (test/shopify-stub.ts). */
    SHOPIFY_STUB_URL: string;
  }
}
