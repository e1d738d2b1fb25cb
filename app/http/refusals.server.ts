// The answers a loader or action throws when it will not go on: 404 and 403, with one body shape,
// `{ message }`, that resource routes send as JSON and the area error boundaries read (decision 053).
import { data } from "react-router";
import type { DashboardShell } from "~/lib/dashboard";

/** What a thrown refusal carries: why, and, for a refused dashboard page, what its shell shows. */
export interface Refusal {
  message: string;
  shell?: DashboardShell;
}

/** Nothing here by that name: the page, record or file asked for does not exist (or is not the asker's to know of). */
export function notFound(message = "Not found") {
  return data<Refusal>({ message }, { status: 404 });
}

/**
 * Not for this account. A refused dashboard page names the dashboard's shell (the viewer's e-mail
 * and staff links): the guard runs before any loader, so the page is drawn from the root, and the
 * shell comes from here.
 */
export function forbidden(shell?: DashboardShell) {
  return data<Refusal>({ message: "You don't have permission to access this page", ...(shell ? { shell } : {}) }, { status: 403 });
}

/** A domain problem that stops a page: its own words, with 404 for what is not there and 403 for the rest. */
export function refusedBy(problem: { code: string; message: string }) {
  return data<Refusal>({ message: problem.message }, { status: problem.code === "not-found" ? 404 : 403 });
}
