import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusUpdates } from "~/server/platform/db/schema.server";
import { call, db, unique } from "../helpers";

describe("dates in server-rendered pages", () => {
  it("are written in UTC inside <time datetime>, the same for every visitor (the browser switches them to its own zone)", async () => {
    // Far ahead, so it is always among the latest updates shown.
    const at = Date.UTC(2099, 11, 31, 23, 45);
    const title = `Zone check ${unique("z")}`;
    const [row] = await db.insert(statusUpdates).values({ title, description: "d", type: "update", createdAt: at }).returning();
    try {
      const page = (headers: HeadersInit) => call(`/status?zone=${unique("q")}`, { headers }).then((r) => r.text());
      const [berlin, tokyo] = await Promise.all([page({ "Accept-Language": "de-DE" }), page({ "Accept-Language": "ja-JP" })]);
      const time = '<time dateTime="2099-12-31T23:45:00.000Z" title="Dec 31, 2099 at 23:45 UTC">Dec 31, 2099 at 23:45 UTC</time>';
      expect(berlin).toContain(time);
      expect(tokyo).toContain(time);
    } finally {
      await db.delete(statusUpdates).where(eq(statusUpdates.id, row!.id));
    }
  });
});
