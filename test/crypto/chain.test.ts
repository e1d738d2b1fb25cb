import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ChainUnavailable, esploraChain } from "~/server/crypto/chain.server";
import { DEFAULT_RATE_URL, DEMO_RATES, RateUnavailable, spotRates } from "~/server/crypto/rates.server";

const stub = new URL(env.CRYPTO_BTC_EXPLORER_URL).origin;

const newAddress = () => `bc1qtest${crypto.randomUUID().replaceAll("-", "")}`;

/** A network of the stand-in's own for one test, so no other test moves its tip or sees its payments. */
function freshNet() {
  const net = `btc-${crypto.randomUUID()}`;
  const control = async <T>(action: string, body: Record<string, unknown>): Promise<T> => {
    const response = await fetch(`${stub}/_control/${action}`, { method: "POST", body: JSON.stringify({ net, ...body }) });
    if (!response.ok) throw new Error(`${action}: ${await response.text()}`);
    return response.json();
  };
  return {
    base: `${stub}/${net}`,
    chain: (timeoutMs?: number) => esploraChain(`${stub}/${net}`, fetch, timeoutMs),
    pay: async (address: string, units: number, txid?: string) => (await control<{ txid: string }>("pay", { address, units, txid })).txid,
    mine: (address: string, blocks?: number) => control<{ tip: number; height: number }>("mine", { address, blocks }),
    drop: (txid: string) => control("drop", { txid }),
    behave: (address: string, behaviour: string) => control("behaviour", { address, behaviour }),
    hits: async (address: string) =>
      ((await (await fetch(`${stub}/_control/hits/${net}/${encodeURIComponent(address)}`)).json()) as { hits: number }).hits,
  };
}

/** A fetcher answering from `answers` by URL path, and the URLs it was asked for. */
function canned(answers: Record<string, () => Response>) {
  const asked: string[] = [];
  const fetcher = (async (input: RequestInfo | URL) => {
    asked.push(String(input));
    const answer = answers[new URL(String(input)).pathname];
    return answer ? answer() : new Response("Not Found", { status: 404 });
  }) as typeof fetch;
  return { fetcher, asked };
}

/** A fetcher for a host that cannot be reached. */
const unreachable = (async () => {
  throw new TypeError("Network connection lost.");
}) as typeof fetch;

const txid = (n: number) => n.toString(16).padStart(64, "0");

/** An Esplora transaction with outputs [address, value] (no address: an OP_RETURN output), in block `height` or the mempool. */
function esploraTx(n: number, outputs: [string | undefined, number][], height: number | null) {
  return {
    txid: txid(n),
    vout: outputs.map(([address, value]) =>
      address === undefined ? { scriptpubkey_type: "op_return", value } : { scriptpubkey_address: address, value },
    ),
    status: height === null ? { confirmed: false } : { confirmed: true, block_height: height, block_time: 1_700_000_000 },
  };
}

describe("Esplora chain adapter (against the local explorer stand-in)", () => {
  it("reads the tip height, which moves as blocks are mined", async () => {
    const net = freshNet();
    expect(await net.chain().tipHeight()).toBe(100);
    await net.mine(newAddress(), 3);
    expect(await net.chain().tipHeight()).toBe(103);
  });

  it("sees a payment in the mempool, then in the block that confirmed it, counting only what it pays the address", async () => {
    const net = freshNet();
    const address = newAddress();
    const paid = await net.pay(address, 150_000);
    expect(await net.chain().paymentsTo(address)).toEqual([{ txid: paid, units: 150_000, height: null }]);
    await net.mine(newAddress(), 2); // blocks without it
    const { height } = await net.mine(address);
    expect(height).toBe(103);
    expect(await net.chain().paymentsTo(address)).toEqual([{ txid: paid, units: 150_000, height: 103 }]);
  });

  it("returns every payment to the address for the caller to add up", async () => {
    const net = freshNet();
    const address = newAddress();
    const first = await net.pay(address, 30_000);
    await net.mine(address);
    const second = await net.pay(address, 20_000);
    const payments = await net.chain().paymentsTo(address);
    expect(payments).toHaveLength(2);
    expect(payments).toEqual(
      expect.arrayContaining([
        { txid: first, units: 30_000, height: 101 },
        { txid: second, units: 20_000, height: null },
      ]),
    );
    expect(payments.reduce((sum, p) => sum + p.units, 0)).toBe(50_000);
  });

  it("counts, of one transaction paying several addresses, only the outputs to the address asked about", async () => {
    const net = freshNet();
    const [mine, theirs] = [newAddress(), newAddress()];
    const shared = txid(0xbeef);
    await net.pay(mine, 1_000, shared);
    await net.pay(theirs, 2_500, shared);
    await net.pay(mine, 500, shared);
    expect(await net.chain().paymentsTo(mine)).toEqual([{ txid: shared, units: 1_500, height: null }]);
    expect(await net.chain().paymentsTo(theirs)).toEqual([{ txid: shared, units: 2_500, height: null }]);
    expect(await net.chain().paymentsTo(newAddress())).toEqual([]);
  });

  it("forgets a payment that left the mempool without confirming", async () => {
    const net = freshNet();
    const address = newAddress();
    const vanished = await net.pay(address, 10_000);
    const kept = await net.pay(address, 7_000);
    await net.drop(vanished);
    expect(await net.chain().paymentsTo(address)).toEqual([{ txid: kept, units: 7_000, height: null }]);
  });

  it("pages past the first 25 confirmed transactions, reading the mempool once", async () => {
    const net = freshNet();
    const address = newAddress();
    await Promise.all(Array.from({ length: 30 }, (_, i) => net.pay(address, 1_000 + i)));
    await net.mine(address);
    await net.pay(address, 99_000);
    await net.pay(address, 98_000);
    const payments = await net.chain().paymentsTo(address);
    expect(new Set(payments.map((p) => p.txid)).size).toBe(32);
    expect(payments.filter((p) => p.height === 101)).toHaveLength(30);
    expect(
      payments
        .filter((p) => p.height === null)
        .map((p) => p.units)
        .sort(),
    ).toEqual([98_000, 99_000]);
    expect(payments.reduce((sum, p) => sum + p.units, 0)).toBe(30 * 1_000 + (29 * 30) / 2 + 99_000 + 98_000);
    expect(await net.hits(address)).toBe(2); // the first page, then /txs/chain/<last txid seen>
  });

  it("reads at most 8 pages: the newest 200 confirmed transactions", async () => {
    const net = freshNet();
    const address = newAddress();
    await Promise.all(Array.from({ length: 5 }, () => net.pay(address, 1)));
    await net.mine(address);
    await Promise.all(Array.from({ length: 200 }, () => net.pay(address, 2)));
    await net.mine(address);
    const payments = await net.chain().paymentsTo(address);
    expect(payments).toHaveLength(200);
    expect(payments.every((p) => p.height === 102 && p.units === 2)).toBe(true);
    expect(await net.hits(address)).toBe(8);
  });

  it("encodes the address into the path and takes a base URL ending in a slash", async () => {
    const net = freshNet();
    const odd = "bc1q/odd?address=1#x";
    const paid = await net.pay(odd, 4_242);
    expect(await esploraChain(`${net.base}/`).paymentsTo(odd)).toEqual([{ txid: paid, units: 4_242, height: null }]);
    expect(await esploraChain(`${net.base}//`).tipHeight()).toBe(100);
  });

  it("throws ChainUnavailable, naming the request, when the explorer is down, answers garbage or takes too long", async () => {
    const net = freshNet();
    const address = newAddress();
    await net.pay(address, 5_000);
    const path = `/address/${address}/txs`;

    await net.behave(address, "down");
    const down = await net
      .chain()
      .paymentsTo(address)
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ChainUnavailable);
    expect((down as Error).message).toBe(`Chain explorer: GET ${path} answered HTTP 503`);

    await net.behave(address, "garbage");
    await expect(net.chain().paymentsTo(address)).rejects.toThrow(
      new ChainUnavailable(`Chain explorer: GET ${path} answered an unexpected value`),
    );

    await net.behave(address, "slow");
    const started = Date.now();
    await expect(net.chain(300).paymentsTo(address)).rejects.toThrow(
      new ChainUnavailable(`Chain explorer: GET ${path} did not answer within 300 ms`),
    );
    expect(Date.now() - started).toBeLessThan(5_000);

    await net.behave(address, "ok");
    expect(await net.chain().paymentsTo(address)).toHaveLength(1);
    expect(await net.hits(address)).toBe(4);
  });
});

describe("Esplora chain adapter (answers the stand-in does not give)", () => {
  const base = "https://explorer.example/api";
  const address = "bc1qshopaddress";

  it("skips transactions that pay the address nothing, and outputs without an address", async () => {
    const { fetcher } = canned({
      [`/api/address/${address}/txs`]: () =>
        Response.json([
          esploraTx(
            1,
            [
              ["bc1qsomeoneelse", 90_000],
              ["bc1qchange", 9_000],
            ],
            null,
          ), // a spend from the address
          esploraTx(
            2,
            [
              [undefined, 0],
              [address, 5_000],
              ["bc1qchange", 1_234],
            ],
            840_000,
          ),
          esploraTx(3, [[address, 0]], 839_999),
        ]),
    });
    expect(await esploraChain(base, fetcher).paymentsTo(address)).toEqual([{ txid: txid(2), units: 5_000, height: 840_000 }]);
  });

  it("pages on from mempool.space's first page, which holds up to 50 transactions, mempool first", async () => {
    const mempool = Array.from({ length: 30 }, (_, i) => esploraTx(100 + i, [[address, 1]], null));
    const confirmed = Array.from({ length: 20 }, (_, i) => esploraTx(200 + i, [[address, 10]], 840_000 - i));
    const older = Array.from({ length: 3 }, (_, i) => esploraTx(300 + i, [[address, 100]], 830_000 - i));
    const { fetcher, asked } = canned({
      [`/api/address/${address}/txs`]: () => Response.json([...mempool, ...confirmed]),
      [`/api/address/${address}/txs/chain/${txid(219)}`]: () => Response.json(older),
    });
    const payments = await esploraChain(base, fetcher).paymentsTo(address);
    expect(payments.reduce((sum, p) => sum + p.units, 0)).toBe(30 + 200 + 300);
    expect(asked).toEqual([`${base}/address/${address}/txs`, `${base}/address/${address}/txs/chain/${txid(219)}`]);
  });

  it("refuses amounts and heights that are not whole numbers from 0 up, and answers that are not JSON", async () => {
    const answers = [
      JSON.stringify([esploraTx(1, [[address, -1]], null)]),
      JSON.stringify([esploraTx(1, [[address, 1.5]], null)]),
      JSON.stringify([{ ...esploraTx(1, [], null), vout: [{ scriptpubkey_address: address, value: "1000" }] }]),
      JSON.stringify([esploraTx(1, [[address, 1]], -3)]),
      JSON.stringify([{ ...esploraTx(1, [[address, 1]], null), txid: "abc" }]),
      JSON.stringify([esploraTx(1, [[address, Number.MAX_SAFE_INTEGER]], 1), esploraTx(2, [[address, 1]], 1)]),
      "<html>Bad gateway</html>",
    ];
    for (const body of answers) {
      const { fetcher } = canned({ [`/api/address/${address}/txs`]: () => new Response(body) });
      await expect(esploraChain(base, fetcher).paymentsTo(address), body).rejects.toBeInstanceOf(ChainUnavailable);
    }
  });

  it("throws ChainUnavailable when the explorer cannot be reached", async () => {
    await expect(esploraChain(base, unreachable).tipHeight()).rejects.toThrow(
      new ChainUnavailable("Chain explorer: GET /blocks/tip/height failed: Network connection lost."),
    );
  });

  it("reads the tip height from plain text, and refuses anything but a whole number", async () => {
    const tip = (body: string) => esploraChain(base, canned({ "/api/blocks/tip/height": () => new Response(body) }).fetcher).tipHeight();
    expect(await tip("840000\n")).toBe(840_000);
    for (const body of ["", "abc", "-1", "1.5", "1e6", '{"height":1}', "99999999999999999999"]) {
      await expect(tip(body), body).rejects.toBeInstanceOf(ChainUnavailable);
    }
  });
});

describe("USD spot rates", () => {
  /** The adapter over a fetcher answering Coinbase's shape with `data` for every request. */
  const answering = (data: unknown, status = 200) => canned({ "/v2/prices/BTC-USD/spot": () => Response.json({ data }, { status }) });
  const btcAt = (amount: string) =>
    spotRates(DEFAULT_RATE_URL, answering({ amount, base: "BTC", currency: "USD" }).fetcher).usdCentsPerCoin("BTC");

  it("reads the price of each coin from the stand-in, in cents", async () => {
    const rates = spotRates(env.CRYPTO_RATE_URL);
    expect(rates.demo).toBe(false);
    expect(await rates.usdCentsPerCoin("BTC")).toBe(10_000_000);
    expect(await rates.usdCentsPerCoin("LTC")).toBe(10_000);
  });

  it("asks Coinbase's spot price endpoint for the coin by default", async () => {
    const { fetcher, asked } = canned({
      "/v2/prices/LTC-USD/spot": () => Response.json({ data: { amount: "71.3", base: "LTC", currency: "USD" } }),
    });
    expect(await spotRates(DEFAULT_RATE_URL, fetcher).usdCentsPerCoin("LTC")).toBe(7_130);
    expect(asked).toEqual(["https://api.coinbase.com/v2/prices/LTC-USD/spot"]);
  });

  it("turns the decimal amount into whole cents exactly, half a cent and up rounding up", async () => {
    const cases: [string, number][] = [
      ["67123.45", 6_712_345],
      ["67123.456", 6_712_346],
      ["67123.455", 6_712_346],
      ["67123.4549", 6_712_345],
      ["1.005", 101], // 1.005 * 100 is 100.49999... in floating point
      ["67123", 6_712_300],
      ["67123.4", 6_712_340],
      ["0.005", 1],
      ["0001.50", 150],
    ];
    for (const [amount, cents] of cases) expect(await btcAt(amount), amount).toBe(cents);
  });

  it("throws RateUnavailable when the price cannot be had or is not a usable price", async () => {
    const failures: [() => Promise<number>, string][] = [
      [() => btcAt("0"), "0 is not a usable price"],
      [() => btcAt("0.004"), "0.004 is not a usable price"],
      [() => btcAt("99999999999999999.99"), "99999999999999999.99 is not a usable price"],
      [() => btcAt("-5"), "amount is not a decimal"],
      [() => btcAt("1e5"), "amount is not a decimal"],
      [() => btcAt(" 67123.45"), "amount is not a decimal"],
      [
        () => spotRates(DEFAULT_RATE_URL, answering({ amount: 67123.45, base: "BTC", currency: "USD" }).fetcher).usdCentsPerCoin("BTC"),
        "Invalid type: Expected string but received 67123.45",
      ],
      [
        () => spotRates(DEFAULT_RATE_URL, answering({ amount: "71.30", base: "LTC", currency: "USD" }).fetcher).usdCentsPerCoin("BTC"),
        "the price is for another coin",
      ],
      [
        () => spotRates(DEFAULT_RATE_URL, answering({ amount: "61000.00", base: "BTC", currency: "EUR" }).fetcher).usdCentsPerCoin("BTC"),
        "the price is not in US dollars",
      ],
      [
        () => spotRates(DEFAULT_RATE_URL, answering({ amount: "1.00", base: "BTC", currency: "USD" }, 503).fetcher).usdCentsPerCoin("BTC"),
        "HTTP 503",
      ],
      [
        () =>
          spotRates(DEFAULT_RATE_URL, canned({ "/v2/prices/BTC-USD/spot": () => new Response("<html>") }).fetcher).usdCentsPerCoin("BTC"),
        "the answer is not JSON",
      ],
      [() => spotRates(DEFAULT_RATE_URL, unreachable).usdCentsPerCoin("BTC"), "Network connection lost."],
    ];
    for (const [price, reason] of failures) {
      const error = await price().catch((e: unknown) => e);
      expect(error, reason).toBeInstanceOf(RateUnavailable);
      expect((error as Error).message).toContain(`USD spot price of BTC: ${reason}`);
    }
  });

  it("offers fixed demo rates, labelled as such", async () => {
    expect(DEMO_RATES.demo).toBe(true);
    expect(await DEMO_RATES.usdCentsPerCoin("BTC")).toBe(100_000_00);
    expect(await DEMO_RATES.usdCentsPerCoin("LTC")).toBe(100_00);
  });
});
