// The TypeScript client against the shared conformance vectors: every case, as every SDK runs them,
// the answers to releases/latest included.
import { describe, expect, it } from "vitest";
import vectors from "../../vectors/licence-vectors.json";
import machineVectors from "../../vectors/machine-id-vectors.json";
import { type CheckResult, type ClockReading, LicenceVerifier, type SignedResponse, type UnsignedFailure } from "../src/licence-client";
import { firmwareSource, hardwareId } from "../src/machine-id";
import type { ReleaseChannel } from "../src/releases";

type Case = (typeof vectors.cases)[number];
type ReleaseCase = (typeof vectors.releaseCases)[number];

const clockOf = ({ clock }: Pick<Case, "clock">): ClockReading => ({
  now: Date.parse(clock.now),
  trustedTime: clock.trustedTime === null ? null : Date.parse(clock.trustedTime),
  driftMs: clock.driftSeconds * 1000,
});

async function judge(vector: Case): Promise<CheckResult> {
  const verifier = await LicenceVerifier.create(vectors.publicKey, "product" in vector.request ? vector.request.product : undefined);
  if (vector.kind === "offline") return verifier.judgeLease(vector.request, ("stored" in vector && vector.stored) || null, clockOf(vector));
  const response = "response" in vector ? vector.response : undefined;
  if (!response) throw new Error(`${vector.name}: no response`);
  if ("network" in response) return verifier.judgeAnswer(vector.request, { status: null, body: "" }, clockOf(vector));
  if (response.status !== 200)
    return verifier.judgeAnswer(vector.request, { status: response.status, body: response.body }, clockOf(vector));
  return verifier.judgeAnswer(
    vector.request,
    { body: new TextEncoder().encode(response.body), signature: response.signature },
    clockOf(vector),
  );
}

function responseOf(response: ReleaseCase["response"]): SignedResponse | UnsignedFailure {
  if ("network" in response) return { status: null, body: "" };
  if (response.status !== 200) return { status: response.status, body: response.body };
  return { body: new TextEncoder().encode(response.body), signature: response.signature };
}

/** The fields of a result that the vectors state. */
function conclusion(result: CheckResult) {
  switch (result.outcome) {
    case "valid":
      return { outcome: result.outcome, code: result.code, offline: result.offline };
    case "denied":
      return { outcome: result.outcome, code: result.code, offline: result.offline };
    case "invalid-request":
      return { outcome: result.outcome, field: result.field };
    default:
      return { outcome: result.outcome, reason: result.reason };
  }
}

describe("the licence conformance vectors", () => {
  it("hold cases of every outcome", () => {
    expect(new Set(vectors.cases.map((c) => c.expect.outcome))).toEqual(
      new Set(["valid", "denied", "offline", "tampered", "invalid-request"]),
    );
  });

  it.each(vectors.cases.map((c) => [c.name, c] as const))("%s", async (_name, vector) => {
    const result = await judge(vector);
    const { expiresAt, renewUrl, ...stated } = vector.expect as typeof vector.expect & {
      expiresAt?: string | null;
      renewUrl?: string | null;
    };
    expect(conclusion(result)).toEqual(stated);
    // Where a case states the licence's expiry and renewal link, the SDK exposes exactly those.
    if (expiresAt !== undefined) expect(result.expiresAt?.toISOString() ?? null).toBe(expiresAt);
    if (renewUrl !== undefined) expect(result.renewUrl).toBe(renewUrl);
  });

  it("state the expiry and the renewal link of valid, expired and lifetime answers", () => {
    const stating = vectors.cases.filter((c) => "renewUrl" in c.expect);
    expect(stating.map((c) => c.expect.outcome)).toEqual(expect.arrayContaining(["valid", "denied"]));
    expect(stating.some((c) => (c.expect as { renewUrl?: string | null }).renewUrl === null)).toBe(true);
  });
});

describe("the release conformance vectors", () => {
  it("hold offered releases and every refusal", () => {
    expect(new Set(vectors.releaseCases.map((c) => c.expect.error))).toEqual(
      new Set([null, "channel-not-allowed", "no-release", "denied", "tampered", "offline"]),
    );
  });

  it.each(vectors.releaseCases.map((c) => [c.name, c] as const))("%s", async (_name, vector) => {
    const verifier = await LicenceVerifier.create(vectors.publicKey);
    const judged = await verifier.judgeRelease(
      vector.request,
      vector.request.channel as ReleaseChannel,
      responseOf(vector.response),
      clockOf(vector),
    );
    const offered = judged.release && {
      version: judged.release.version,
      channel: judged.release.channel,
      size: judged.release.size,
      sha256: judged.release.sha256,
      url: judged.release.url,
      urlExpiresAt: judged.release.urlExpiresAt,
    };
    expect({ ...conclusion(judged.licence), error: judged.error, release: offered }).toEqual(vector.expect);
  });
});

// The same PC gives the same hardware id whichever SDK derives it.
describe("the machine id vectors", () => {
  it.each(machineVectors.hardwareIds)("$name", ({ salt, source, hwid }) => {
    expect(hardwareId(salt, source)).toBe(hwid);
  });
  it.each(machineVectors.firmwareUuids)("firmware UUID $name", ({ uuid, source }) => {
    expect(firmwareSource(uuid)).toBe(source);
  });
});
