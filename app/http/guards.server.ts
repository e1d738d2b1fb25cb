// Who may do what. Private routes run these as middleware, so every loader and action under
// them is covered — including the data requests a script could send without the page.
import { createContext, data, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import type { Viewer } from "~/lib/viewer";
import { app } from "./context.server";
import { getViewer } from "../server/accounts/session.server";
import { redirectWithToast } from "./flash-toast.server";

export const viewerContext = createContext<Viewer>();

export const requireUser: MiddlewareFunction<Response> = async ({ request, context }) => {
  const viewer = await getViewer(app(context).db, request);
  if (!viewer) {
    throw redirectWithToast("/auth", { title: "Login Required", description: "Please log in to continue" });
  }
  context.set(viewerContext, viewer);
};

/** Runs after `requireUser`: a signed-in member who is not an admin gets 403. */
export const requireAdmin: MiddlewareFunction<Response> = ({ context }) => {
  if (!context.get(viewerContext).isAdmin) {
    throw data({ message: "You don't have permission to access this page" }, { status: 403 });
  }
};

export function currentViewer(context: Readonly<RouterContextProvider>): Viewer {
  return context.get(viewerContext);
}
