// The staff action pipeline, through the Worker: the intent's capability is checked before anything
// else in the form (a refused role gets 403 whatever it sent, even an intent the form does not
// have), and a form that fails its schema is answered with every field's problem at once.
import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "~/lib/staff-actions";
import { call, createAccount, signIn, unique } from "../helpers";

const staff = async (role: "admin" | "support") => signIn(await createAccount({ role }), unique("ip"));

describe("the capability comes first", () => {
  it("refuses support's admin intents with 403 even when the form is broken or the intent made up", async () => {
    const cookie = await staff("support");
    const customer = await createAccount();
    const refused: [string, Record<string, string>][] = [
      ["/dashboard/orders/shopify/1", { intent: "revoke", key: "not-a-key", reason: "" }],
      ["/dashboard/orders/shopify/1", { intent: "made-up" }],
      [`/dashboard/customers/${customer.id}`, { intent: "ban", reason: "" }],
      [`/dashboard/customers/${customer.id}`, { intent: "credit", amount: "lots" }],
      ["/dashboard/licences", { intent: "pause", licenceId: "x", reason: "" }],
      ["/dashboard/licences", { intent: "compensate", product: "", days: "999", reason: "" }],
    ];
    for (const [path, form] of refused)
      expect([path, form.intent, (await call(path, { form, cookie })).status]).toEqual([path, form.intent, 403]);
  });

  it("lets support's own intents through to the schema, which answers 400", async () => {
    const cookie = await staff("support");
    const response = await call("/dashboard/licences", { form: { intent: "reset-hwid", licenceId: "x" }, cookie });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Unknown key");
  });

  it("answers an admin's made-up intent with 400: only a role that may do all of a form's intents gets that far", async () => {
    const cookie = await staff("admin");
    const response = await call("/dashboard/orders/shopify/1", { form: { intent: "made-up" }, cookie });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Unknown request");
    expect(capabilitiesFor("order", "made-up").sort()).toEqual(["orders.manage", "orders.resend", "orders.view"]);
    expect(capabilitiesFor("order", "reveal")).toEqual(["orders.view"]);
  });
});

describe("every field's problem", () => {
  it("comes back at once from a form that fails its schema, the first one as the toast", async () => {
    const cookie = await staff("admin");
    const response = await call("/dashboard/manage-codes/stock", { form: { intent: "threshold", variantId: "", threshold: "-1" }, cookie });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as {
      ok: boolean;
      intent?: string;
      problem: { field?: string };
      fieldErrors: Record<string, string>;
    };
    expect(answer.ok).toBe(false);
    expect(answer.intent).toBe("threshold");
    expect(answer.problem.field).toBe("variantId");
    expect(answer.fieldErrors).toEqual({ variantId: "Choose a variant", threshold: "Enter a whole number from 0 to 100,000" });
  });

  it("comes back from a member's form too", async () => {
    const cookie = await signIn(await createAccount(), unique("ip"));
    const response = await call("/dashboard/security/passkeys", { form: { intent: "rename", id: "", name: "" }, cookie });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { fieldErrors: Record<string, string> };
    expect(Object.keys(answer.fieldErrors).sort()).toEqual(["id", "name"]);
  });
});
