// Licence SDK benchmark: how long a program waits on the SDK's own work, with no network. Builds
// the C++ SDK (Release) and times its verifier over the conformance vectors' genuine VALID answer:
// a signed answer checked online (signature, nonce, key, PC, freshness) and the stored lease judged
// offline (signature, whom it is for, clocks, end); then the same two with the TypeScript client in
// this Node. Goal: well under a millisecond each. Figures go to bench/results/licence-sdk.json and
// into docs/performance.md between the licence-sdk bench markers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ClockReading, LicenceVerifier } from "../sdk/typescript/src/licence-client.ts";
import { median, publish } from "./shared.ts";

const VECTORS = resolve("sdk/vectors/licence-vectors.json");
const RUNS = 5;
const CALLS = 20_000;
const GOAL_MICROSECONDS = 1000;

interface Timing {
  answerMicroseconds: number;
  leaseMicroseconds: number;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The compiler CMake chose, as it recorded it ("GNU 12.2.0"). */
function compilerOf(build: string): string {
  const [version] = readdirSync(join(build, "CMakeFiles")).filter((name) => /^\d/.test(name));
  const recorded = readFileSync(join(build, "CMakeFiles", version!, "CMakeCXXCompiler.cmake"), "utf8");
  const field = (name: string) => new RegExp(`set\\(${name} "([^"]*)"\\)`).exec(recorded)?.[1] ?? "?";
  return `${field("CMAKE_CXX_COMPILER_ID")} ${field("CMAKE_CXX_COMPILER_VERSION")}`;
}

function cppTimings(): { compiler: string; timings: Timing[] } {
  const build = mkdtempSync(join(tmpdir(), "licence-sdk-bench-"));
  try {
    // Only the verifier's benchmark: the example program, which needs a shop's public key, is not built.
    execFileSync("cmake", ["-S", "sdk/cpp", "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DVERTEX_LICENCE_EXAMPLE=OFF"], { stdio: "pipe" });
    execFileSync("cmake", ["--build", build, "--target", "licence_bench", "-j2"], { stdio: "pipe" });
    const timings = Array.from(
      { length: RUNS },
      () => JSON.parse(execFileSync(join(build, "licence_bench"), [VECTORS], { encoding: "utf8" })) as Timing,
    );
    return { compiler: compilerOf(build), timings };
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
}

async function typescriptTimings(): Promise<Timing[]> {
  const vectors = JSON.parse(readFileSync(VECTORS, "utf8")) as {
    publicKey: string;
    cases: { request: { key: string; hwid: string; nonce: string }; response: { body: string; signature: string } }[];
  };
  const { request, response } = vectors.cases[0]!;
  const verifier = await LicenceVerifier.create(vectors.publicKey);
  const body = new TextEncoder().encode(response.body);
  const clock: ClockReading = { now: Date.parse("2030-01-15T13:00:00.000Z"), trustedTime: null, driftMs: 0 };
  const time = async (work: () => Promise<{ outcome: string }>) => {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) if ((await work()).outcome !== "valid") throw new Error("the vector's answer did not verify");
    return ((performance.now() - started) * 1000) / CALLS;
  };
  const timings: Timing[] = [];
  for (let run = 0; run < RUNS; run++) {
    timings.push({
      answerMicroseconds: await time(() => verifier.judgeAnswer(request, { body, signature: response.signature }, clock)),
      leaseMicroseconds: await time(() => verifier.judgeLease(request, response, clock)),
    });
  }
  return timings;
}

const { compiler, timings: cpp } = cppTimings();
const typescript = await typescriptTimings();
const summary = (timings: Timing[]) => ({
  answer: round(median(timings.map((t) => t.answerMicroseconds))),
  lease: round(median(timings.map((t) => t.leaseMicroseconds))),
});
const results = { cpp: summary(cpp), typescript: summary(typescript), runs: { cpp, typescript } };
const slowest = Math.max(results.cpp.answer, results.cpp.lease, results.typescript.answer, results.typescript.lease);

const markdown = [
  "| one verification, no network (median of 5 runs × 20,000) | C++ (libsodium) µs | TypeScript (Web Crypto) µs |",
  "|---|---:|---:|",
  `| a signed answer: signature, nonce, key, PC, freshness | ${results.cpp.answer} | ${results.typescript.answer} |`,
  `| the stored lease offline: signature, whom it is for, clocks, end | ${results.cpp.lease} | ${results.typescript.lease} |`,
  "",
  `Goal: under ${GOAL_MICROSECONDS} µs each: **${slowest < GOAL_MICROSECONDS ? "pass" : "fail"}** (slowest ${slowest} µs).`,
  "",
  `Measured ${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPU cores, ${compiler} (CMake Release build), Node ${process.version}; the conformance vectors' VALID answer.`,
].join("\n");

publish("licence-sdk", results, markdown);
