// The development-only pages (mailbox, simulated chain, demo checkout): a failure shows in the
// site's frame, with the error's own message while developing.
import { Outlet } from "react-router";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import type { Route } from "./+types/layout";

export default function Dev() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <GeneralErrorBoundary error={error} />;
}
