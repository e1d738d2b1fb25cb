// The hub floor: the least work a signed-in page can cost, served by the same runtime as the app.
// It reads the session from D1 by its cookie (the token's SHA-256, joined to its account, refused
// when expired or banned), runs one indexed query for the page (the member's newest orders), and
// answers the very bytes and headers the app answered for that page (captured by the bench before
// it starts), from memory. No router, no ORM, no rendering: what the app spends beyond this is its own.
import dashboard from "./hub-floor.dashboard.html";
import subscriptions from "./hub-floor.subscriptions.html";
import orders from "./hub-floor.orders.html";
import headers from "./hub-floor.json";

const PAGES = {
  "/dashboard": dashboard,
  "/dashboard/subscriptions": subscriptions,
  "/dashboard/orders": orders,
};

const IDLE_MS = 7 * 24 * 60 * 60 * 1000;
const SESSION = /(?:^|;\s*)__Host-session=([^;]+)/;

async function sha256Hex(text) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    const page = PAGES[path];
    if (page === undefined) return new Response("Not found", { status: 404 });
    const token = SESSION.exec(request.headers.get("Cookie") ?? "")?.[1];
    const session =
      token &&
      (await env.DB.prepare(
        "select s.user_id, s.expires_at, s.last_seen_at from sessions s join users u on u.id = s.user_id where s.id = ? and u.banned_at is null",
      )
        .bind(await sha256Hex(token))
        .first());
    const now = Date.now();
    // Ended after 30 days in all or 7 idle days, as the app's sessions are.
    if (!session || session.expires_at <= now || session.last_seen_at + IDLE_MS <= now)
      return new Response(null, { status: 302, headers: { Location: "/auth" } });
    await env.DB.prepare("select id, created_at, total_cents from orders where user_id = ? order by created_at desc limit 50")
      .bind(session.user_id)
      .all();
    return new Response(page, { headers: headers[path] });
  },
};
