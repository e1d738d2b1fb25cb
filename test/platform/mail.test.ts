import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { mailOutbox } from "~/server/platform/db/schema.server";
import { deliverMail, enqueueMail, type MailConfig, MAX_MAIL_ATTEMPTS, retryDueMail, sendMail } from "~/server/platform/mail.server";
import { db, unique } from "../helpers";

const httpConfig: MailConfig = {
  MAIL_TRANSPORT: "http",
  MAIL_FROM: "Shop <shop@example.test>",
  MAIL_API_URL: "https://mail.example.test/send",
  MAIL_API_KEY: "test-key",
};

function recordingFetch(status: number) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetcher = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(status === 200 ? "{}" : "upstream down", { status });
  }) as unknown as typeof fetch;
  return { calls, fetcher };
}

const message = () => ({ to: `${unique("to")}@example.test`, subject: "Hello", text: "Body https://shop.test/x" });
const row = (id: number) => db.select().from(mailOutbox).where(eq(mailOutbox.id, id)).get();

describe("mail outbox", () => {
  it("writes every message to the outbox before delivering it", async () => {
    const pending: Promise<unknown>[] = [];
    const m = message();
    expect(await sendMail({ db, mail: env, waitUntil: (p) => pending.push(p) }, m)).toBe(true);
    const stored = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, m.to)).get();
    expect(stored).toMatchObject({ subject: "Hello", textBody: m.text, status: "pending" });
    await Promise.all(pending);
    // The local transport is "none": the outbox is the mailbox, so delivery just marks it sent.
    expect((await row(stored!.id))?.status).toBe("sent");
  });

  it("never sends a message twice for the same dedupe key", async () => {
    const key = unique("order");
    expect(await enqueueMail(db, { ...message(), dedupeKey: key })).toBeTypeOf("number");
    expect(await enqueueMail(db, { ...message(), dedupeKey: key })).toBeNull();
    expect(await db.select().from(mailOutbox).where(eq(mailOutbox.dedupeKey, key)).all()).toHaveLength(1);
  });

  it("posts to the configured HTTP mail API with its key", async () => {
    const id = (await enqueueMail(db, message()))!;
    const { calls, fetcher } = recordingFetch(200);
    expect(await deliverMail(db, httpConfig, id, { fetcher })).toBe("sent");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(httpConfig.MAIL_API_URL);
    expect(new Headers(calls[0]!.init.headers).get("Authorization")).toBe("Bearer test-key");
    expect(JSON.parse(String(calls[0]!.init.body))).toMatchObject({ from: httpConfig.MAIL_FROM, subject: "Hello" });
    expect(await row(id)).toMatchObject({ status: "sent", attempts: 1, lastError: null });
  });

  it("keeps a failed message, records why, and retries it later from the cron job", async () => {
    const now = Date.now();
    const id = (await enqueueMail(db, message(), now))!;
    const failing = recordingFetch(503);
    expect(await deliverMail(db, httpConfig, id, { now, fetcher: failing.fetcher })).toBe("retry");
    const failed = await row(id);
    expect(failed).toMatchObject({ status: "pending", attempts: 1 });
    expect(failed!.lastError).toContain("503");
    expect(failed!.nextAttemptAt).toBeGreaterThan(now);

    // Not due yet: the cron job leaves it alone.
    const working = recordingFetch(200);
    await retryDueMail(db, httpConfig, now + 1000, working.fetcher);
    expect(await row(id)).toMatchObject({ status: "pending", attempts: 1 });

    await retryDueMail(db, httpConfig, failed!.nextAttemptAt, working.fetcher);
    expect(await row(id)).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("gives up after the last attempt and marks the message failed, without deleting it", async () => {
    let now = Date.now();
    const id = (await enqueueMail(db, message(), now))!;
    const { fetcher } = recordingFetch(500);
    for (let i = 0; i < MAX_MAIL_ATTEMPTS; i++) {
      await deliverMail(db, httpConfig, id, { now, fetcher });
      now = (await row(id))!.nextAttemptAt;
    }
    expect(await row(id)).toMatchObject({ status: "failed", attempts: MAX_MAIL_ATTEMPTS });
  });

  it("lets only one deliverer claim a message", async () => {
    const id = (await enqueueMail(db, message()))!;
    const { calls, fetcher } = recordingFetch(200);
    const outcomes = await Promise.all([
      deliverMail(db, httpConfig, id, { fetcher }),
      deliverMail(db, httpConfig, id, { fetcher }),
      deliverMail(db, httpConfig, id, { fetcher }),
    ]);
    expect(outcomes.filter((o) => o === "sent")).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("runs from the scheduled handler with the Worker's own configuration", async () => {
    const id = (await enqueueMail(db, message()))!;
    await runScheduledJobs(env);
    expect((await row(id))?.status).toBe("sent");
  });
});
