// Actions here answer `{ ok, toast }`; this shows each answer's toast once and runs `onSuccess`
// after a successful one.
import { useEffect, useRef } from "react";
import type { Toast } from "~/lib/toast";
import { useToast } from "./toaster";

export interface ActionAnswer {
  ok: boolean;
  toast: Toast;
}

export function useResultToast(fetcher: { state: string; data?: ActionAnswer }, onSuccess?: () => void) {
  const { toast } = useToast();
  const success = useRef(onSuccess);
  success.current = onSuccess;
  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    toast(fetcher.data.toast);
    if (fetcher.data.ok) success.current?.();
  }, [fetcher.state, fetcher.data, toast]);
}
