// The browser's view of who is signed in. Public pages are rendered the same for everyone, so
// the signed-in state comes from the private /api/viewer endpoint after load, after every
// navigation (a sign-in or sign-out redirects) and when the tab becomes visible again.
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { useLocation } from "react-router";
import type { Toast } from "~/lib/toast";
import type { Viewer } from "~/lib/viewer";
import { useToast } from "./toaster";

type ViewerState = { status: "loading"; viewer: null } | { status: "ready"; viewer: Viewer | null };

const ViewerContext = createContext<ViewerState>({ status: "loading", viewer: null });

export function ViewerProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<ViewerState>({ status: "loading", viewer: null });
  const location = useLocation();
  const { toast } = useToast();

  useEffect(() => {
    // A request already under way is never aborted: the server hands a flash toast out once, so
    // an answer that arrives after the page moved on still shows its toast. Only the viewer it
    // carries is ignored, because a newer request is on its way.
    let current = true;
    const refresh = async () => {
      try {
        // The page says where it is, so a toast meant for another page stays for that page.
        const response = await fetch(`/api/viewer?page=${encodeURIComponent(window.location.pathname)}`, { credentials: "same-origin" });
        if (!response.ok) return;
        const body = (await response.json()) as { viewer: Viewer | null; toast: Toast | null };
        if (current) setState({ status: "ready", viewer: body.viewer });
        if (body.toast) toast(body.toast);
      } catch {
        // Offline: keep what we had.
      }
    };
    const onVisible = () => {
      if (document.visibilityState === "visible") void refresh();
    };
    void refresh();
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      current = false;
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [location.key, toast]);

  return <ViewerContext.Provider value={state}>{children}</ViewerContext.Provider>;
}

export function useViewer(): ViewerState {
  return useContext(ViewerContext);
}
