// What the Worker hands to every loader and action: bindings, the execution context,
// the database and this response's CSP nonce.
import { createContext, type RouterContextProvider } from "react-router";
import type { Db } from "./db/client.server";

export interface AppContext {
  env: Env;
  ctx: ExecutionContext;
  db: Db;
  nonce: string;
}

export const appContext = createContext<AppContext>();

export function app(context: Readonly<RouterContextProvider>): AppContext {
  return context.get(appContext);
}
