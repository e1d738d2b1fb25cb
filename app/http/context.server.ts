// What the Worker hands to every loader and action: bindings, the execution context,
// the database, the catalogue and this response's CSP nonce.
import { createContext, type RouterContextProvider } from "react-router";
import type { SessionDeps } from "../server/accounts/session.server";
import type { Catalogue } from "../server/catalogue/catalogue.server";
import { sessionDepsFor } from "../server/chat/chat-gateway.server";
import { discordSetup } from "../server/discord/role-setup.server";
import type { LinkDeps } from "../server/discord/role-link.server";
import type { Db } from "../server/platform/db/client.server";
import type { MailingDeps } from "../server/platform/mail.server";
import type { DeletionDeps } from "../server/privacy/account-deletion.server";
import { type StaticText, staticText } from "../server/platform/static-text.server";

export interface AppContext {
  env: Env;
  ctx: ExecutionContext;
  db: Db;
  catalogue: Catalogue;
  nonce: string;
}

export const appContext = createContext<AppContext>();

export function app(context: Readonly<RouterContextProvider>): AppContext {
  return context.get(appContext);
}

/** The static files this request's pages show (decision 119), read from the asset layer. */
export function staticTextOf(context: Readonly<RouterContextProvider>, request: Request): StaticText {
  return staticText(app(context).env.ASSETS, request.url);
}

/** The database, mail transport and `waitUntil` of this request, for domain functions that send mail. */
export function mailingDeps(context: Readonly<RouterContextProvider>): MailingDeps {
  const { db, env, ctx } = app(context);
  return { db, mail: env, waitUntil: ctx.waitUntil.bind(ctx) };
}

/** The database and what must hear of ended sessions (the chat room closes their sockets). */
export function sessionDeps(context: Readonly<RouterContextProvider>): SessionDeps {
  const { db, env } = app(context);
  return sessionDepsFor(env, db);
}

/** What linking Discord needs beyond mail: the Discord API (or its simulated twin) and the queue. */
export function linkDeps(context: Readonly<RouterContextProvider>): LinkDeps {
  const { db, env } = app(context);
  return { ...mailingDeps(context), setup: discordSetup(env, db), queue: env.JOB_QUEUE };
}

/** What deleting an account needs: mail (its last e-mail), sessions, the chat room and the role sync's queue. */
export function deletionDeps(context: Readonly<RouterContextProvider>): DeletionDeps {
  const { env } = app(context);
  return { ...mailingDeps(context), ...sessionDeps(context), env, queue: env.JOB_QUEUE };
}
