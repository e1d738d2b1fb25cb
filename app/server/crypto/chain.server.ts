// The chain as the payment watcher sees it: the height of the newest block, and the transactions
// paying one address, read from an Esplora explorer (mempool.space, blockstream.info, litecoinspace.org).
import * as v from "valibot";

/** One transaction paying the address: what it pays to it (in satoshis/litoshis) and the block it is in (null while in the mempool). */
export interface ChainPayment {
  txid: string;
  units: number;
  height: number | null;
}

export interface Chain {
  tipHeight(): Promise<number>;
  paymentsTo(address: string): Promise<ChainPayment[]>;
}

/** The explorer could not be reached or answered something else than Esplora would; ask again later. */
export class ChainUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainUnavailable";
  }
}

const TIMEOUT_MS = 8_000;
/** Confirmed transactions in one page of an address's history (Esplora's fixed page size). */
const CONFIRMED_PER_PAGE = 25;
/** mempool.space's explorer fills its first page up to 50, mempool first, and pages on from there. */
const FIRST_PAGE_MAX = 50;
/**
 * Pages read for one address: the mempool and the newest 200 to 225 confirmed transactions. An
 * order's address receives one or two payments; the cap keeps an address flooded with dust from
 * costing hundreds of requests on every check. Payments older than that are not seen.
 */
const MAX_PAGES = 8;

const wholeNumber = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

const txsSchema = v.array(
  v.object({
    txid: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
    // Outputs without an address (OP_RETURN, bare scripts) leave `scriptpubkey_address` out.
    vout: v.array(v.object({ scriptpubkey_address: v.nullish(v.string()), value: wholeNumber })),
    status: v.variant("confirmed", [
      v.object({ confirmed: v.literal(true), block_height: wholeNumber }),
      v.object({ confirmed: v.literal(false) }),
    ]),
  }),
);

const heightSchema = v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number), v.safeInteger());

type EsploraTx = v.InferOutput<typeof txsSchema>[number];

/**
 * The chain behind an Esplora API at `baseUrl` (e.g. https://mempool.space/api). Every request
 * gives up after `timeoutMs`; any failure or unexpected answer throws `ChainUnavailable`, whose
 * message names the request by its path under `baseUrl` (which may hold a provider's key).
 */
export function esploraChain(baseUrl: string, fetcher: typeof fetch = fetch, timeoutMs = TIMEOUT_MS): Chain {
  const base = baseUrl.replace(/\/+$/, "");

  async function get<T>(path: string, parse: (body: string) => T): Promise<T> {
    const fail = (reason: string) => new ChainUnavailable(`Chain explorer: GET ${path} ${reason}`);
    let body: string;
    try {
      const response = await fetcher(`${base}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) {
        await response.body?.cancel();
        throw fail(`answered HTTP ${response.status}`);
      }
      body = await response.text();
    } catch (error) {
      if (error instanceof ChainUnavailable) throw error;
      if (error instanceof Error && error.name === "TimeoutError") throw fail(`did not answer within ${timeoutMs} ms`);
      throw fail(`failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      return parse(body);
    } catch (error) {
      const where = error instanceof v.ValiError ? v.getDotPath(error.issues[0]) : null;
      throw fail(
        error instanceof SyntaxError
          ? "answered with something else than JSON"
          : `answered an unexpected value${where ? ` at ${where}` : ""}`,
      );
    }
  }

  const getTxs = (path: string) => get(path, (body) => v.parse(txsSchema, JSON.parse(body)));

  return {
    tipHeight: () => get("/blocks/tip/height", (body) => v.parse(heightSchema, body)),

    async paymentsTo(address) {
      const path = `/address/${encodeURIComponent(address)}/txs`;
      const payments = new Map<string, ChainPayment>();
      let lastConfirmed: string | undefined;
      let page = await getTxs(path);
      let full = page.length >= FIRST_PAGE_MAX || page.filter((tx) => tx.status.confirmed).length >= CONFIRMED_PER_PAGE;
      for (let pages = 1; ; pages++) {
        for (const tx of page) {
          if (tx.status.confirmed) lastConfirmed = tx.txid;
          const payment = paymentOf(tx, address);
          // A transaction that confirmed between two pages is kept with its block.
          if (payment && (payments.get(tx.txid)?.height ?? null) === null) payments.set(tx.txid, payment);
        }
        if (!full || pages === MAX_PAGES) break;
        page = await getTxs(lastConfirmed ? `${path}/chain/${lastConfirmed}` : `${path}/chain`);
        full = page.length >= CONFIRMED_PER_PAGE;
      }
      const total = [...payments.values()].reduce((sum, p) => sum + p.units, 0);
      if (!Number.isSafeInteger(total)) throw new ChainUnavailable(`Chain explorer: GET ${path} answered amounts beyond any coin's supply`);
      return [...payments.values()];
    },
  };
}

/** What `tx` pays to `address`, or null when it pays it nothing (a spend from it, say). */
function paymentOf(tx: EsploraTx, address: string): ChainPayment | null {
  const paid = tx.vout.filter((out) => out.scriptpubkey_address === address).reduce((sum, out) => sum + out.value, 0);
  if (paid === 0) return null;
  return { txid: tx.txid, units: paid, height: tx.status.confirmed ? tx.status.block_height : null };
}
