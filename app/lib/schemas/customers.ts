// The back office's customer forms: the search (GET ?q=&cursor=) and the actions on a customer's
// page (ban, unban, end sessions, credit the reseller balance, assign a role, delete the account
// at its owner's request). Checked in the
// browser and again on the server; each form posts an `intent` naming which one it is.
import * as v from "valibot";
import { blockCustomerSchema } from "./fraud";
import type { Problem } from "../result";
import { ROLES } from "../roles";
import { creditSchema } from "./reseller";

const text = () => v.optional(v.string(), "");

export const MAX_QUERY_LENGTH = 256;

export const customerSearchSchema = v.object({
  q: v.pipe(text(), v.trim(), v.maxLength(MAX_QUERY_LENGTH, `Search for at most ${MAX_QUERY_LENGTH} characters`)),
  // Where the previous page of newest accounts ended: "<created at>.<account id>".
  cursor: v.pipe(
    text(),
    v.check((value) => value === "" || /^\d{1,15}\.[A-Za-z0-9-]{1,64}$/.test(value), "That page does not exist"),
  ),
});
export type CustomerSearchInput = v.InferOutput<typeof customerSearchSchema>;

/** What the role select offers: no role (a member) or one of the staff roles. */
export const ROLE_CHOICES = ["member", ...ROLES] as const;
export type RoleChoice = (typeof ROLE_CHOICES)[number];

export const banSchema = v.object({
  intent: v.literal("ban"),
  reason: v.pipe(text(), v.trim(), v.nonEmpty("Please give a reason"), v.maxLength(200, "Keep the reason under 200 characters")),
});

/** Deleting an account at its owner's request: the request it answers, for the audit log (decision 099). */
export const deleteAccountOnRequestSchema = v.object({
  intent: v.literal("delete-account"),
  reason: v.pipe(
    text(),
    v.trim(),
    v.nonEmpty("Please say whose request this answers (a ticket or message)"),
    v.maxLength(200, "Keep the reason under 200 characters"),
  ),
});

export const roleSchema = v.object({
  intent: v.literal("role"),
  role: v.picklist(ROLE_CHOICES, "Choose Member, Support or Admin"),
});

export const customerActionSchema = v.variant(
  "intent",
  [
    banSchema,
    v.object({ intent: v.literal("unban") }),
    // No session named: every session of the account ends.
    v.object({ intent: v.literal("end-sessions"), session: v.pipe(text(), v.maxLength(64, "Unknown session")) }),
    creditSchema,
    roleSchema,
    blockCustomerSchema,
    deleteAccountOnRequestSchema,
  ],
  "Unknown request",
);
export type CustomerActionInput = v.InferOutput<typeof customerActionSchema>;

/** The toast title for a customer form's input problem, in the browser and from the server. */
export const customerInputTitle = (problem: Problem) =>
  problem.field === "reason" ? "Reason required" : problem.field === "amount" ? "Invalid Amount" : "Error";
