// The few calls of Discord's REST API (v10) the role sync makes, as a bot. Every answer is a value:
// the body, or Discord's JSON error (`{code, message}`) with its HTTP status, and for a 429 how long
// to wait (`retry_after` in the body, else the `Retry-After` header) and whether the limit is the
// bot's global one. The transport takes and gives plain values (decision 062): the Worker's fetch
// against DISCORD_API_URL, or the simulated guild in development and tests (decision 064).

export const DEFAULT_DISCORD_API_URL = "https://discord.com/api/v10";
/** Discord's permission bits the sync needs: Manage Roles, or Administrator, which implies it. */
export const MANAGE_ROLES = 1n << 28n;
export const ADMINISTRATOR = 1n << 3n;

/** Discord's JSON error codes the sync acts on. */
export const DISCORD_ERRORS = {
  unknownMember: 10007,
  unknownRole: 10011,
  unknownUser: 10013,
  missingAccess: 50001,
  missingPermissions: 50013,
} as const;

export interface DiscordRole {
  id: string;
  name: string;
  position: number;
  permissions: string;
  managed?: boolean;
}

export interface DiscordMember {
  user?: { id: string; username: string };
  roles: string[];
}

export type DiscordAnswer<T> =
  { ok: true; value: T } | { ok: false; status: number; code: number; message: string; retryAfterSeconds?: number; global?: boolean };

/** One HTTP exchange as plain values (decision 062): what the transport sends, and what came back. */
export interface DiscordCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}
export interface DiscordReply {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}
export type DiscordTransport = (call: DiscordCall) => Promise<DiscordReply>;

/** The real transport: the Worker's fetch. */
export const fetchTransport: DiscordTransport = async ({ method, url, headers, body }) => {
  const answer = await fetch(url, { method, headers, body });
  return { status: answer.status, headers: Object.fromEntries(answer.headers), body: await answer.text() };
};

export interface DiscordApi {
  me(): Promise<DiscordAnswer<{ id: string; username: string }>>;
  roles(guildId: string): Promise<DiscordAnswer<DiscordRole[]>>;
  member(guildId: string, userId: string): Promise<DiscordAnswer<DiscordMember>>;
  /** Adds a member with the OAuth2 access token (`guilds.join`) and roles; an existing member is left as is. */
  addMember(guildId: string, userId: string, accessToken: string, roles: string[]): Promise<DiscordAnswer<null>>;
  addRole(guildId: string, userId: string, roleId: string, reason: string): Promise<DiscordAnswer<null>>;
  removeRole(guildId: string, userId: string, roleId: string, reason: string): Promise<DiscordAnswer<null>>;
}

/** How long a 429 asks to wait: the body's `retry_after` (seconds, fractional), else the header. */
function retryAfterOf(reply: DiscordReply, body: { retry_after?: unknown }): number {
  const fromBody = Number(body.retry_after);
  const fromHeader = Number(reply.headers["retry-after"]);
  const seconds = Number.isFinite(fromBody) && fromBody > 0 ? fromBody : Number.isFinite(fromHeader) && fromHeader > 0 ? fromHeader : 1;
  return Math.ceil(seconds);
}

/**
 * `invocation`: an id of the Worker invocation making the requests, sent with each one
 * (`X-Invocation-Id`), so an egress proxy behind DISCORD_API_URL can trace and count the requests
 * of each invocation against the subrequest limit. Discord ignores it.
 */
export function discordApi(options: { baseUrl: string; token: string; transport: DiscordTransport; invocation?: string }): DiscordApi {
  const base = options.baseUrl.replace(/\/+$/, "");
  async function call<T>(method: string, path: string, init: { body?: unknown; reason?: string } = {}): Promise<DiscordAnswer<T>> {
    // Discord refuses bots without a "DiscordBot (url, version)" User-Agent; this is our request's, not a caller's.
    // eslint-disable-next-line no-restricted-syntax
    const headers: Record<string, string> = { Authorization: `Bot ${options.token}`, "User-Agent": "DiscordBot (https://github.com, 1.0)" };
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    if (options.invocation) headers["X-Invocation-Id"] = options.invocation;
    // The audit log entry Discord shows staff for the change.
    if (init.reason) headers["X-Audit-Log-Reason"] = encodeURIComponent(init.reason);
    let reply: DiscordReply;
    try {
      reply = await options.transport({
        method,
        url: `${base}${path}`,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    } catch (error) {
      return {
        ok: false,
        status: 0,
        code: 0,
        message: `Discord could not be reached: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const text = reply.body;
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // Cloudflare's own block page (error 1015) is HTML: it is a rate limit all the same.
    }
    if (reply.status >= 200 && reply.status < 300) return { ok: true, value: (text ? body : null) as T };
    const message = typeof body.message === "string" ? body.message : `HTTP ${reply.status}`;
    const code = typeof body.code === "number" ? body.code : 0;
    if (reply.status === 429) {
      const global = body.global === true || reply.headers["x-ratelimit-global"] === "true";
      return { ok: false, status: 429, code, message, retryAfterSeconds: retryAfterOf(reply, body), global };
    }
    return { ok: false, status: reply.status, code, message };
  }
  const memberPath = (guildId: string, userId: string) => `/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(userId)}`;
  return {
    me: () => call("GET", "/users/@me"),
    roles: (guildId) => call("GET", `/guilds/${encodeURIComponent(guildId)}/roles`),
    member: (guildId, userId) => call("GET", memberPath(guildId, userId)),
    addMember: (guildId, userId, accessToken, roles) =>
      call("PUT", memberPath(guildId, userId), { body: { access_token: accessToken, roles } }),
    addRole: (guildId, userId, roleId, reason) =>
      call("PUT", `${memberPath(guildId, userId)}/roles/${encodeURIComponent(roleId)}`, { reason }),
    removeRole: (guildId, userId, roleId, reason) =>
      call("DELETE", `${memberPath(guildId, userId)}/roles/${encodeURIComponent(roleId)}`, { reason }),
  };
}
