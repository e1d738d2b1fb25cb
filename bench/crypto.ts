// One cron sweep of open crypto orders: builds the app, serves the production build with wrangler's
// local workerd watching a local Esplora stand-in (test/esplora-stub.ts, behind a recorder that
// notes every request the Worker makes to it), puts 500 open orders into D1 (100 of them paid in
// full and confirmed on the stand-in's chain), triggers the cron once and waits until every order
// has been read and the paid ones settled. Checks the result (all 500 read, exactly the 100 paid
// ones found paid, none of the others moved) and counts the explorer requests of each queue
// invocation, which Workers limits (50 subrequests per invocation on the Free plan). Writes
// bench/results/crypto.json and docs/performance.md between the crypto bench markers.
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import { cpus } from "node:os";
import { HDKey } from "@scure/bip32";
import { NETWORK, p2wpkh } from "@scure/btc-signer";
import { startEsploraStub } from "../test/esplora-stub.ts";
import { buildApp, FREE_SUBREQUESTS, codesStatement, publish, queryD1, type QueueBatch, seedD1, serveApp, triggerCron } from "./shared.ts";

const ORDERS = 500;
/** Every PAID_EVERY-th order is paid in full and confirmed before the cron runs. */
const PAID_EVERY = 5;
const PAID = ORDERS / PAID_EVERY;
/** As in app/server/crypto/crypto-watch.server.ts: orders per chain-check message. */
const CHECKS_PER_MESSAGE = 40;
/** One address read per order and one tip height per coin. */
const REQUESTS_PER_MESSAGE_BOUND = CHECKS_PER_MESSAGE + 2;
const VARIANT = 7_300_000_201;
const PRODUCT = "Vertex Rust";
const PLAN = "30 Days";
const STUB_PORT = 8801;
const RECORDER_PORT = 8802;
const APP_PORT = 8803;
const INSPECTOR_PORT = 8804;
const TIMEOUT_MS = 5 * 60_000;
/** The explorer is taken to be done once it has had no request for this long after the last address. */
const QUIET_MS = 3_000;
/** How much later than the batch it reports wrangler's log line may arrive. */
const LOG_SLACK_MS = 100;

type Coin = "BTC" | "LTC";

interface BenchOrder {
  orderNumber: string;
  coin: Coin;
  net: string;
  address: string;
  account: string;
  addressIndex: number;
  amountCents: number;
  rateCents: number;
  amountUnits: number;
  paid: boolean;
}

interface ExplorerRequest {
  at: number;
  answeredAt: number;
  net: string;
  /** The address whose transactions were read; null for the tip height. */
  address: string | null;
  status: number;
}

interface OrderRow {
  order_number: string;
  crypto_type: Coin;
  wallet_address: string;
  status: string;
  checked_at: number | null;
  paid_at: number | null;
  received_units: number;
  amount_units: number;
  confirmations: number;
  product_code: string | null;
  updated_at: number;
}

const COINS: Coin[] = ["BTC", "LTC"];
const NET: Record<Coin, string> = { BTC: "btc", LTC: "ltc" };
/** Spot prices in US cents, as the stand-in quotes them. */
const RATE_CENTS: Record<Coin, number> = { BTC: 10_000_000, LTC: 10_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** `count` receive addresses (0/i) of a fresh BIP84 account per coin, as a shop's wallet hands them out. */
function wallet(coin: Coin, count: number): { account: string; addresses: string[] } {
  const account = HDKey.fromMasterSeed(randomBytes(32)).derive(`m/84'/${coin === "BTC" ? 0 : 2}'/0'`);
  const receive = account.deriveChild(0);
  const network = { ...NETWORK, bech32: coin === "BTC" ? NETWORK.bech32 : "ltc" };
  return {
    account: createHash("sha256").update(account.publicKey!).digest("hex").slice(0, 16),
    addresses: Array.from({ length: count }, (_, i) => p2wpkh(receive.deriveChild(i).publicKey!, network).address!),
  };
}

/** Half the orders in each coin, every one at its own address; every PAID_EVERY-th is paid. */
function benchOrders(): BenchOrder[] {
  const wallets = { BTC: wallet("BTC", ORDERS / 2), LTC: wallet("LTC", ORDERS / 2) };
  return Array.from({ length: ORDERS }, (_, i) => {
    const coin = COINS[i % 2]!;
    const addressIndex = Math.floor(i / 2);
    const amountCents = 999;
    return {
      orderNumber: `CRYPTO-BENCH${String(i).padStart(7, "0")}`,
      coin,
      net: NET[coin],
      address: wallets[coin].addresses[addressIndex]!,
      account: wallets[coin].account,
      addressIndex,
      amountCents,
      rateCents: RATE_CENTS[coin],
      amountUnits: Math.ceil((amountCents * 100_000_000) / RATE_CENTS[coin]),
      paid: i % PAID_EVERY === 0,
    };
  });
}

/**
 * Migrates the local D1 in `state`, stocks a key for each paid order and writes the buyer and the
 * open orders straight into the database, as the crypto dialog would have left them.
 */
function seed(state: string, orders: BenchOrder[]) {
  const stock = codesStatement(
    { numericId: VARIANT, title: `${PRODUCT} - ${PLAN}` },
    Array.from({ length: PAID }, (_, k) => `BENCH-CRYPTO-${String(k).padStart(4, "0")}`),
  );
  const now = Date.now();
  const expiresAt = now + 30 * 60_000;
  const userId = "bench-crypto-buyer";
  const email = "crypto-buyer@example.test";
  const rows = orders.map(
    (o) =>
      `insert into crypto_orders (id, order_number, user_id, purpose, status, product_title, variant_title, variant_id, customer_email, amount_cents, currency, crypto_type, wallet_address, wallet_account, address_index, amount_units, rate_cents, rate_is_demo, expires_at, created_at, updated_at) values ('${o.orderNumber.toLowerCase()}', '${o.orderNumber}', '${userId}', 'key', 'pending', '${PRODUCT}', '${PLAN}', 'gid://shopify/ProductVariant/${VARIANT}', '${email}', ${o.amountCents}, 'USD', '${o.coin}', '${o.address}', '${o.account}', ${o.addressIndex}, ${o.amountUnits}, ${o.rateCents}, 0, ${expiresAt}, ${now}, ${now});`,
  );
  seedD1(state, "orders", [stock, `insert into users (id, email, created_at) values ('${userId}', '${email}', ${now});`, ...rows]);
}

async function control(stubUrl: string, action: "pay" | "mine", body: Record<string, unknown>) {
  const answer = await fetch(`${stubUrl}/_control/${action}`, { method: "POST", body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(`stub ${action}: ${answer.status} ${await answer.text()}`);
}

/**
 * Passes the Worker's explorer requests on to the stand-in at `target` and notes each one: when it
 * came, when it was answered, and the address it read (null for the tip height).
 */
async function startRecorder(port: number, target: string): Promise<{ requests: ExplorerRequest[]; close(): Promise<void> }> {
  const requests: ExplorerRequest[] = [];
  const server = createServer((req, res) => {
    const at = Date.now();
    const path = req.url ?? "/";
    const [net = "", resource, address] = new URL(path, "http://recorder").pathname.split("/").slice(1);
    const note = (status: number) =>
      requests.push({
        at,
        answeredAt: Date.now(),
        net,
        address: resource === "address" ? decodeURIComponent(address ?? "") : null,
        status,
      });
    fetch(`${target}${path}`)
      .then(async (answer) => {
        const body = await answer.text();
        res.writeHead(answer.status, { "Content-Type": answer.headers.get("content-type") ?? "text/plain" });
        res.end(body);
        note(answer.status);
      })
      .catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
        note(502);
      });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the Worker's idle keep-alive connections
      }),
  };
}

/** Waits until every order's address has been read and the explorer has been quiet for QUIET_MS. */
async function waitForChecks(requests: ExplorerRequest[], deadline: number) {
  for (;;) {
    const read = new Set(requests.filter((r) => r.address !== null).map((r) => `${r.net}:${r.address}`));
    const last = requests.at(-1)?.answeredAt ?? 0;
    if (read.size >= ORDERS && Date.now() - last >= QUIET_MS) return;
    if (Date.now() > deadline) throw new Error(`only ${read.size} of ${ORDERS} order addresses were read before the timeout`);
    await sleep(250);
  }
}

/** Polls D1 (each poll starts a wrangler process) until the paid orders are settled. */
async function waitForSettlement(state: string, deadline: number) {
  for (;;) {
    const [[row]] = queryD1(state, `select count(*) as n from crypto_orders where status = 'complete'`) as [{ n: number }[]];
    if (row!.n >= PAID) return;
    if (Date.now() > deadline) throw new Error(`only ${row!.n} of ${PAID} paid orders were settled before the timeout`);
    await sleep(5_000);
  }
}

interface Message {
  /** The Worker's clock when the message's checks began: every order it checked has this checked_at. */
  startedAt: number;
  orders: OrderRow[];
  addressRequests: ExplorerRequest[];
  tipRequests: ExplorerRequest[];
}

/**
 * The chain-check messages, told apart by checked_at (one `now` per message), each with the
 * explorer requests it made: its orders' address reads, and each tip height read, which starts
 * together with the first address read of its coin in the message.
 */
function messagesOf(rows: OrderRow[], requests: ExplorerRequest[]): Message[] {
  const byStart = new Map<number, OrderRow[]>();
  for (const row of rows) byStart.set(row.checked_at!, [...(byStart.get(row.checked_at!) ?? []), row]);
  const messages: Message[] = [...byStart]
    .sort(([a], [b]) => a - b)
    .map(([startedAt, orders]) => ({ startedAt, orders, addressRequests: [], tipRequests: [] }));
  const messageOf = new Map<string, Message>();
  for (const message of messages)
    for (const order of message.orders) messageOf.set(`${NET[order.crypto_type]}:${order.wallet_address}`, message);
  const addressReads = requests.filter((r) => r.address !== null);
  for (const request of addressReads) {
    const message = messageOf.get(`${request.net}:${request.address}`);
    if (!message) throw new Error(`the explorer was asked about an address no order has: ${request.net} ${request.address}`);
    message.addressRequests.push(request);
  }
  for (const tip of requests.filter((r) => r.address === null)) {
    const nearest = addressReads.filter((r) => r.net === tip.net).sort((a, b) => Math.abs(a.at - tip.at) - Math.abs(b.at - tip.at))[0];
    if (!nearest) throw new Error(`a ${tip.net} tip height was read without any ${tip.net} address`);
    messageOf.get(`${nearest.net}:${nearest.address}`)!.tipRequests.push(tip);
  }
  return messages;
}

/**
 * The queue invocation each message ran in: the last batch that began (by wrangler's log: logged
 * at the end, after its duration) no later than the message started. The handler runs a batch's
 * messages one after another, so a message belongs to the batch running when it started.
 */
function invocationsOf(messages: Message[], batches: QueueBatch[]) {
  const invocations = batches.map((b) => ({
    startedAt: b.loggedAt - b.ms,
    ms: b.ms,
    size: b.size,
    acked: b.acked,
    messages: [] as Message[],
  }));
  for (const message of messages) {
    const invocation = invocations.filter((i) => i.startedAt - LOG_SLACK_MS <= message.startedAt).at(-1);
    if (!invocation) throw new Error(`no queue batch began before the chain-check message of ${message.startedAt}`);
    invocation.messages.push(message);
  }
  for (const i of invocations)
    if (i.messages.length > i.size)
      throw new Error(
        `${i.messages.length} chain-check messages placed in a batch of ${i.size}: the batch log and the messages do not agree`,
      );
  return invocations.filter((i) => i.messages.length > 0);
}

const requestsOf = (m: Message) => m.addressRequests.length + m.tipRequests.length;

function checkResult(orders: BenchOrder[], rows: OrderRow[], requests: ExplorerRequest[], messages: Message[], failedJobs: number) {
  const paid = new Set(orders.filter((o) => o.paid).map((o) => o.orderNumber));
  const paidRows = rows.filter((r) => paid.has(r.order_number));
  const openRows = rows.filter((r) => !paid.has(r.order_number));
  const reads = new Map<string, number>();
  for (const r of requests) if (r.address !== null) reads.set(`${r.net}:${r.address}`, (reads.get(`${r.net}:${r.address}`) ?? 0) + 1);
  const checks = {
    "orders in D1": { expected: ORDERS, value: rows.length },
    "orders checked (checked_at set)": { expected: ORDERS, value: rows.filter((r) => r.checked_at !== null).length },
    "order addresses read": { expected: ORDERS, value: reads.size },
    "addresses read more than once": { expected: 0, value: [...reads.values()].filter((n) => n > 1).length },
    "explorer requests not answered 200": { expected: 0, value: requests.filter((r) => r.status !== 200).length },
    "chain-check messages": { expected: Math.ceil(ORDERS / CHECKS_PER_MESSAGE), value: messages.length },
    [`messages with more than ${CHECKS_PER_MESSAGE} orders`]: {
      expected: 0,
      value: messages.filter((m) => m.orders.length > CHECKS_PER_MESSAGE).length,
    },
    "messages reading a coin's tip height more than once": {
      expected: 0,
      value: messages.filter((m) => COINS.some((coin) => m.tipRequests.filter((t) => t.net === NET[coin]).length > 1)).length,
    },
    "paid orders found paid (paid_at set)": { expected: PAID, value: paidRows.filter((r) => r.paid_at !== null).length },
    "paid orders with the full amount received and confirmed": {
      expected: PAID,
      value: paidRows.filter((r) => r.received_units === r.amount_units && r.confirmations >= 1).length,
    },
    "paid orders settled (complete, with a key)": {
      expected: PAID,
      value: paidRows.filter((r) => r.status === "complete" && r.product_code !== null).length,
    },
    "unpaid orders still pending with nothing received": {
      expected: ORDERS - PAID,
      value: openRows.filter((r) => r.status === "pending" && r.paid_at === null && r.received_units === 0).length,
    },
    "failed jobs": { expected: 0, value: failedJobs },
  };
  for (const [name, { expected, value }] of Object.entries(checks))
    console.log(`${value === expected ? "ok  " : "FAIL"} ${name}: ${value} (expected ${expected})`);
  const wrong = Object.entries(checks).filter(([, c]) => c.value !== c.expected);
  if (wrong.length > 0)
    throw new Error(
      `the cron run's result is incomplete or wrong: ${wrong.map(([name, c]) => `${name} ${c.value} ≠ ${c.expected}`).join("; ")}`,
    );
  return checks;
}

async function main() {
  const state = await buildApp("crypto", [STUB_PORT, RECORDER_PORT, APP_PORT, INSPECTOR_PORT]);
  const orders = benchOrders();
  seed(state, orders);

  const stub = await startEsploraStub(STUB_PORT);
  const recorder = await startRecorder(RECORDER_PORT, stub.url);
  // A production build watches the public explorers unless told otherwise; here it watches the recorder.
  const explorers = Object.fromEntries(
    COINS.map((coin) => [`CRYPTO_${coin}_EXPLORER_URL`, `http://127.0.0.1:${RECORDER_PORT}/${NET[coin]}`]),
  );
  const app = serveApp(state, { port: APP_PORT, inspector: INSPECTOR_PORT, vars: explorers, logBatches: true });
  try {
    for (const o of orders.filter((o) => o.paid)) {
      await control(stub.url, "pay", { net: o.net, address: o.address, units: o.amountUnits });
      await control(stub.url, "mine", { net: o.net, address: o.address, blocks: 1 });
    }
    await app.ready();
    if (recorder.requests.length > 0) throw new Error(`the Worker read the chain ${recorder.requests.length} time(s) before the cron ran`);

    const triggeredAt = Date.now();
    await triggerCron(app.url);
    const deadline = triggeredAt + TIMEOUT_MS;
    await waitForChecks(recorder.requests, deadline);
    await waitForSettlement(state, deadline);

    const [rows, [failed]] = queryD1(
      state,
      `select order_number, crypto_type, wallet_address, status, checked_at, paid_at, received_units, amount_units, confirmations, product_code, updated_at from crypto_orders; select count(*) as n from failed_jobs`,
    ) as [OrderRow[], { n: number }[]];
    const requests = [...recorder.requests].sort((a, b) => a.at - b.at);
    const messages = messagesOf(
      rows.filter((r) => r.checked_at !== null),
      requests,
    );
    const checks = checkResult(orders, rows, requests, messages, failed!.n);
    const invocations = invocationsOf(messages, app.batches);

    const perMessage = messages.map((m) => ({
      startMs: m.startedAt - triggeredAt,
      orders: m.orders.length,
      addressRequests: m.addressRequests.length,
      tipRequests: m.tipRequests.length,
      explorerRequests: requestsOf(m),
      lastAnswerMs: Math.max(...m.addressRequests.map((r) => r.answeredAt)) - triggeredAt,
    }));
    const perInvocation = invocations.map((i) => ({
      startMs: i.startedAt - triggeredAt,
      ms: i.ms,
      batchSize: i.size,
      chainCheckMessages: i.messages.length,
      explorerRequests: i.messages.reduce((sum, m) => sum + requestsOf(m), 0),
    }));
    const maxPerInvocation = Math.max(...perInvocation.map((i) => i.explorerRequests));
    const maxPerMessage = Math.max(...perMessage.map((m) => m.explorerRequests));
    const starts = perMessage.map((m) => m.startMs);
    const gaps = starts.slice(1).map((s, k) => s - starts[k]!);
    const wall = {
      firstMessageStart: starts[0]!,
      lastMessageStart: starts.at(-1)!,
      lastExplorerAnswer: Math.max(...requests.map((r) => r.answeredAt)) - triggeredAt,
      lastOrderSettled: Math.max(...rows.filter((r) => r.status === "complete").map((r) => r.updated_at)) - triggeredAt,
    };
    const tips = requests.filter((r) => r.address === null).length;
    const goal = {
      target: `≤ ${FREE_SUBREQUESTS} explorer requests in any one invocation`,
      value: maxPerInvocation,
      pass: maxPerInvocation <= FREE_SUBREQUESTS,
    };
    console.log("messages", perMessage);
    console.log("invocations", perInvocation);
    console.log(`${goal.pass ? "PASS" : "FAIL"} most explorer requests in one invocation: ${maxPerInvocation} (goal ${goal.target})`);

    const results = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} CPU cores, Node ${process.version}, wrangler dev (local workerd)`,
      orders: ORDERS,
      paid: PAID,
      checksPerMessage: CHECKS_PER_MESSAGE,
      explorerRequests: { total: requests.length, addressReads: requests.length - tips, tipHeights: tips },
      maxExplorerRequests: {
        perInvocation: maxPerInvocation,
        perMessage: maxPerMessage,
        designBoundPerMessage: REQUESTS_PER_MESSAGE_BOUND,
      },
      wallMs: wall,
      messageStartGapsMs: gaps,
      messages: perMessage,
      invocations: perInvocation,
      checks,
      goal,
    };
    const oneEach = perInvocation.every((i) => i.chainCheckMessages === 1);
    const sizes = perInvocation.map((i) => i.batchSize);
    // Settlement jobs of the paid orders a message found may share the next message's batch.
    const batchSizes =
      Math.min(...sizes) === Math.max(...sizes) ? `${sizes[0]} job` : `${Math.min(...sizes)} to ${Math.max(...sizes)} jobs`;
    const markdown = [
      "| figure | value |",
      "|---|---:|",
      `| open orders checked by one cron run | ${checks["orders checked (checked_at set)"].value} of ${ORDERS} |`,
      `| chain-check messages (≤ ${CHECKS_PER_MESSAGE} orders each) | ${messages.length} |`,
      `| queue invocations running them | ${invocations.length}, ${oneEach ? "one chain-check message each" : `up to ${Math.max(...perInvocation.map((i) => i.chainCheckMessages))} chain-check messages in one`} (batches of ${batchSizes}) |`,
      `| explorer requests in all | ${requests.length} (${requests.length - tips} address reads, ${tips} tip heights) |`,
      `| most explorer requests in one message (bound ${REQUESTS_PER_MESSAGE_BOUND}) | ${maxPerMessage} |`,
      `| **most explorer requests in one invocation** | **${maxPerInvocation}** |`,
      `| message starts after the trigger | ${seconds(wall.firstMessageStart)} s to ${seconds(wall.lastMessageStart)} s, ${seconds(Math.min(...gaps))} to ${seconds(Math.max(...gaps))} s apart |`,
      `| trigger → last explorer answer | ${seconds(wall.lastExplorerAnswer)} s |`,
      `| trigger → last paid order settled | ${seconds(wall.lastOrderSettled)} s |`,
      "",
      `Goal: at most ${FREE_SUBREQUESTS} explorer requests in any one invocation (the Free plan's subrequest limit): ${goal.pass ? "pass" : "**fail**"} (${maxPerInvocation}).`,
      "",
      `Completeness: all ${ORDERS} orders checked, each address read once; the ${PAID} paid orders found paid and settled (a key each); none of the ${ORDERS - PAID} unpaid orders moved; no failed jobs.`,
      "",
      `Measured ${results.date}, ${results.machine}; the cron triggered once through /cdn-cgi/local/scheduled, the explorer a local Esplora stand-in.`,
    ].join("\n");
    publish("crypto", results, markdown);
  } finally {
    app.stop();
    await recorder.close();
    await stub.close();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
