// Who may do what. Private routes run these as middleware, so every loader and action under
// them is covered — including the data requests a script could send without the page.
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { dashboardShell } from "~/lib/dashboard";
import { can, type Capability } from "~/lib/roles";
import type { Viewer } from "~/lib/viewer";
import { app } from "./context.server";
import { getViewer } from "../server/accounts/session.server";
import { redirectWithToast } from "./flash-toast.server";
import { forbidden } from "./refusals.server";
import { rememberReturnPath } from "./sign-in-redirect.server";
import { callerOf } from "./caller.server";

export const viewerContext = createContext<Viewer>();

export const requireUser: MiddlewareFunction<Response> = async ({ request, context }) => {
  const viewer = await getViewer(app(context).db, callerOf(request));
  if (!viewer) {
    // Signing in brings the member back here (sign-in-redirect.server).
    throw redirectWithToast(
      "/auth",
      { title: "Login Required", description: "Please log in to continue" },
      { headers: { "Set-Cookie": rememberReturnPath(request) } },
    );
  }
  context.set(viewerContext, viewer);
};

/** Runs after `requireUser`: an account whose role lacks the capability gets 403 (see app/lib/roles.ts). */
export function requireCapability(capability: Capability): MiddlewareFunction<Response> {
  return ({ context }) => {
    assertCapability(context, capability);
  };
}

/** Runs after `requireUser`: 403 unless the viewer's role has at least one of `capabilities` (a page whose parts each need their own). */
export function requireAnyCapability(...capabilities: Capability[]): MiddlewareFunction<Response> {
  return ({ context }) => {
    const viewer = context.get(viewerContext);
    if (!capabilities.some((capability) => can(viewer.role, capability))) throw forbidden(dashboardShell(viewer));
  };
}

/**
 * 403 unless the viewer's role has every capability named (the staff action pipeline checks an
 * intent's this way). The refusal carries the dashboard's shell, which the page is drawn in.
 */
export function assertCapability(context: Readonly<RouterContextProvider>, ...capabilities: Capability[]): Viewer {
  const viewer = context.get(viewerContext);
  if (!capabilities.every((capability) => can(viewer.role, capability))) throw forbidden(dashboardShell(viewer));
  return viewer;
}

export function currentViewer(context: Readonly<RouterContextProvider>): Viewer {
  return context.get(viewerContext);
}
