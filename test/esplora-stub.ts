// A stand-in for an Esplora explorer (the API of mempool.space and blockstream.info) and for
// Coinbase's spot price, served on localhost for the tests and benchmarks. The first path segment
// names a network with its own chain, e.g. /btc/address/<address>/txs; tests move the chain through
// POST /_control/{pay,mine,drop,behaviour} and count requests with GET /_control/hits/<net>/<address>.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    esploraStubUrl: string;
  }
}

/** How an address's transactions endpoint answers: normally, 503, JSON that is not Esplora's, or later than the adapter waits. */
type Behaviour = "ok" | "down" | "garbage" | "slow";

interface StubTx {
  txid: string;
  outputs: { address: string; value: number }[];
  height: number | null;
  /** Arrival order: Esplora lists the newest first, also within one block. */
  seq: number;
}

interface Net {
  tip: number;
  txs: Map<string, StubTx>;
  behaviour: Map<string, Behaviour>;
  hits: Map<string, number>;
  arrivals: number;
}

const START_HEIGHT = 100;
const CONFIRMED_PER_PAGE = 25;
const MEMPOOL_MAX = 50;
const SLOW_MS = 10_000; // past the adapter's 8 s timeout
const PRICES: Record<string, string> = { BTC: "100000.00", LTC: "100.00" };
// Every stub payment also returns change to its sender, as real ones do, which the adapter must ignore.
const CHANGE = { scriptpubkey_address: "stub-sender-change-address", value: 54_321 };

class BadRequest extends Error {}

function esploraTx(tx: StubTx) {
  return {
    txid: tx.txid,
    vout: [...tx.outputs.map((out) => ({ scriptpubkey_address: out.address, value: out.value })), CHANGE],
    status:
      tx.height === null
        ? { confirmed: false }
        : {
            confirmed: true,
            block_height: tx.height,
            block_hash: tx.height.toString(16).padStart(64, "0"),
            block_time: 1_700_000_000 + tx.height * 600,
          },
  };
}

/** The address's transactions as Esplora pages them: `cursor` undefined for the first page (mempool, then confirmed), null for the chain from its top. */
function historyPage(net: Net, address: string, cursor: string | null | undefined): StubTx[] {
  const own = [...net.txs.values()].filter((tx) => tx.outputs.some((out) => out.address === address));
  const mempool = own.filter((tx) => tx.height === null).sort((a, b) => b.seq - a.seq);
  const confirmed = own.filter((tx) => tx.height !== null).sort((a, b) => b.height! - a.height! || b.seq - a.seq);
  if (cursor === undefined) return [...mempool.slice(0, MEMPOOL_MAX), ...confirmed.slice(0, CONFIRMED_PER_PAGE)];
  if (cursor === null) return confirmed.slice(0, CONFIRMED_PER_PAGE);
  // A txid that is not in the address's chain history has nothing after it (as on mempool.space).
  const seen = confirmed.findIndex((tx) => tx.txid === cursor);
  return seen === -1 ? [] : confirmed.slice(seen + 1, seen + 1 + CONFIRMED_PER_PAGE);
}

function control(nets: (name: string) => Net, action: string, body: Record<string, unknown>): unknown {
  const text = (key: string) => {
    const value = body[key];
    if (typeof value !== "string" || !value) throw new BadRequest(`${key} must be a non-empty string`);
    return value;
  };
  const count = (key: string, fallback?: number) => {
    const value = body[key] ?? fallback;
    if (!Number.isSafeInteger(value) || (value as number) < 1) throw new BadRequest(`${key} must be a positive integer`);
    return value as number;
  };
  const net = nets(text("net"));
  switch (action) {
    case "pay": {
      const address = text("address");
      const value = count("units");
      const txid = body.txid === undefined ? randomBytes(32).toString("hex") : text("txid");
      if (!/^[0-9a-f]{64}$/.test(txid)) throw new BadRequest("txid must be 64 lowercase hex characters");
      // The same txid again adds an output to it: one transaction paying several addresses.
      const tx = net.txs.get(txid) ?? { txid, outputs: [], height: null, seq: net.arrivals++ };
      if (tx.height !== null) throw new BadRequest("that transaction is already confirmed");
      tx.outputs.push({ address, value });
      net.txs.set(txid, tx);
      return { txid };
    }
    case "mine": {
      const address = text("address");
      const height = net.tip + 1;
      net.tip += count("blocks", 1);
      const confirmed = [...net.txs.values()].filter((tx) => tx.height === null && tx.outputs.some((out) => out.address === address));
      for (const tx of confirmed) tx.height = height;
      return { tip: net.tip, height, confirmed: confirmed.map((tx) => tx.txid) };
    }
    case "drop": {
      const txid = text("txid");
      if (net.txs.get(txid)?.height !== null) throw new BadRequest("no such unconfirmed transaction");
      net.txs.delete(txid);
      return { dropped: txid };
    }
    case "behaviour": {
      const behaviour = text("behaviour");
      if (!["ok", "down", "garbage", "slow"].includes(behaviour)) throw new BadRequest("behaviour must be ok, down, garbage or slow");
      net.behaviour.set(text("address"), behaviour as Behaviour);
      return { behaviour };
    }
  }
  throw new BadRequest(`unknown control ${action}`);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body = "";
  for await (const chunk of req) body += chunk;
  try {
    const parsed: unknown = JSON.parse(body || "{}");
    if (typeof parsed === "object" && parsed !== null) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new BadRequest("the body must be a JSON object");
}

/** Starts the stub on 127.0.0.1:`port` (any free port by default). Each network starts at height 100. */
export async function startEsploraStub(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const nets = new Map<string, Net>();
  const netNamed = (name: string) => {
    const net = nets.get(name) ?? { tip: START_HEIGHT, txs: new Map(), behaviour: new Map(), hits: new Map(), arrivals: 0 };
    nets.set(name, net);
    return net;
  };

  async function respond(req: IncomingMessage, res: ServerResponse) {
    const send = (status: number, payload: unknown) => {
      res.statusCode = status;
      res.setHeader("Content-Type", typeof payload === "string" ? "text/plain" : "application/json");
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    const [first = "", ...rest] = new URL(req.url ?? "/", "http://stub").pathname.split("/").slice(1).map(decodeURIComponent);

    if (req.method === "POST" && first === "_control" && rest.length === 1)
      return send(200, control(netNamed, rest[0]!, await readJson(req)));
    if (req.method !== "GET") return send(405, "Method Not Allowed");
    if (first === "_control" && rest[0] === "hits" && rest.length === 3)
      return send(200, { hits: netNamed(rest[1]!).hits.get(rest[2]!) ?? 0 });
    if (first === "rates" && rest.length === 2 && rest[1] === "spot") {
      const [coin = "", currency] = rest[0]!.split("-");
      if (!PRICES[coin] || currency !== "USD") return send(404, { errors: [{ id: "not_found", message: "Invalid currency" }] });
      return send(200, { data: { amount: PRICES[coin], base: coin, currency: "USD" } });
    }

    const net = netNamed(first);
    if (rest.join("/") === "blocks/tip/height") return send(200, String(net.tip));
    const [resource, address = "", txs, chain, cursor, extra] = rest;
    if (resource !== "address" || txs !== "txs" || (chain !== undefined && chain !== "chain") || extra !== undefined)
      return send(404, "Not Found");

    net.hits.set(address, (net.hits.get(address) ?? 0) + 1);
    const page = () => historyPage(net, address, chain === undefined ? undefined : (cursor ?? null)).map(esploraTx);
    switch (net.behaviour.get(address) ?? "ok") {
      case "down":
        return send(503, "Service Unavailable");
      case "garbage":
        return send(200, { message: "Too many requests, slow down" });
      case "slow": {
        const timer = setTimeout(() => send(200, page()), SLOW_MS);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      case "ok":
        return send(200, page());
    }
  }

  const server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => {
      res.statusCode = error instanceof BadRequest ? 400 : 500;
      res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // a "slow" answer still waiting
      }),
  };
}

export default async function setup(project: TestProject) {
  const stub = await startEsploraStub();
  project.provide("esploraStubUrl", stub.url);
  return stub.close;
}
