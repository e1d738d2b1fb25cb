// What a program on Node (a tool, an Electron app) needs beyond the web standards: this PC's
// hardware id read from the system as the C++ SDK reads it, a lease store in a file, and a
// download target that is a file. Node 20 and later.
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { appendFile, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { promisify } from "node:util";
import type { LeaseStore, StoredLease } from "./licence-client.ts";
import { DEFAULT_HWID_SALT, firmwareSource, hardwareId } from "./machine-id.ts";
import type { DownloadTarget } from "./releases.ts";

const run = promisify(execFile);

/** A command's output, or null when it is missing or fails. */
async function output(command: string, args: string[]): Promise<string | null> {
  try {
    return (await run(command, args, { windowsHide: true, timeout: 10_000 })).stdout;
  } catch {
    return null;
  }
}

async function firstLine(path: string): Promise<string | null> {
  try {
    return (await readFile(path, "utf8")).split("\n")[0] ?? null;
  } catch {
    return null;
  }
}

/** The firmware's system UUID as the system prints it, or null. */
async function firmwareUuid(): Promise<string | null> {
  if (process.platform === "win32") {
    const printed = await output("powershell.exe", [
      "-NoProfile",
      "-NonInteractive",
      "-Command",
      "(Get-CimInstance -ClassName Win32_ComputerSystemProduct).UUID",
    ]);
    return printed?.trim() || null;
  }
  // Readable by root only on most systems: a program run by a user falls back to the machine-id.
  if (process.platform === "linux") return firstLine("/sys/class/dmi/id/product_uuid");
  return null;
}

/** The installation's own id as "<kind>:<value>", or null. */
async function installationSource(): Promise<string | null> {
  if (process.platform === "win32") {
    const guid = (await output("reg", ["query", "HKLM\\SOFTWARE\\Microsoft\\Cryptography", "/v", "MachineGuid", "/reg:64"]))?.match(
      /MachineGuid\s+REG_SZ\s+(\S+)/,
    )?.[1];
    if (!guid) return null;
    // The system volume's serial, in decimal as the C++ SDK writes it: "1234-ABCD" is 0x1234ABCD.
    const volume = (await output("cmd.exe", ["/d", "/c", `vol ${process.env.SystemDrive ?? "C:"}`]))?.match(/([0-9A-F]{4})-([0-9A-F]{4})/i);
    const serial = volume ? parseInt(`${volume[1]}${volume[2]}`, 16) : 0;
    return `windows:${guid}:${serial}`;
  }
  if (process.platform === "darwin") {
    const uuid = (await output("ioreg", ["-rd1", "-c", "IOPlatformExpertDevice"]))?.match(/"IOPlatformUUID" = "([^"]+)"/)?.[1];
    return uuid ? `macos:${uuid.toLowerCase()}` : null;
  }
  for (const path of ["/etc/machine-id", "/var/lib/dbus/machine-id"]) {
    const id = await firstLine(path);
    if (id && id.length >= 16) return `linux:${id}`;
  }
  return null;
}

/**
 * This machine's identity sources, preferred first: the firmware's UUID (survives reinstalling the
 * system), then the installation's own id (survives reinstalling the program only).
 */
export async function machineSources(): Promise<string[]> {
  const firmware = await firmwareUuid();
  const sources = [firmware === null ? null : firmwareSource(firmware), await installationSource()];
  return sources.filter((source): source is string => source !== null);
}

/** This PC's hardware id, the one the C++ SDK sends on the same PC with the same salt. */
export async function machineId(salt = DEFAULT_HWID_SALT): Promise<string> {
  const [source] = await machineSources();
  if (!source) throw new Error("This computer has no machine identity to derive a hardware id from");
  return hardwareId(salt, source);
}

/** The computer's name as the API takes it (printable ASCII, at most 64 characters), or undefined. */
export function deviceName(): string | undefined {
  const name = [...hostname()]
    .filter((c) => c >= " " && c <= "~")
    .join("")
    .slice(0, 64)
    .trim();
  return name === "" ? undefined : name;
}

// The C++ SDK's lease file: a header line, the signature line, then the body's exact bytes. Either
// SDK reads the other's.
const HEADER = "vertex-licence-lease 1";

async function readAnswer(path: string): Promise<StoredLease | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return null;
  }
  const first = text.indexOf("\n");
  const second = text.indexOf("\n", first + 1);
  if (first < 0 || second < 0 || text.slice(0, first) !== HEADER) return null;
  return { signature: text.slice(first + 1, second), body: text.slice(second + 1) };
}

/** Written beside and renamed over the old file, so a crash never leaves half an answer. */
async function writeAnswer(path: string, answer: StoredLease) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, `${HEADER}\n${answer.signature}\n${answer.body}`);
  await rename(`${path}.tmp`, path);
}

/**
 * The last answer in `path`, and the newest answer seen in `path`.newest, so an older lease file put
 * back after a newer answer is refused in a later run too. Editing either gains nothing: they are
 * signed.
 */
export function fileLeaseStore(path: string): LeaseStore {
  return {
    read: () => readAnswer(path),
    write: (lease) => writeAnswer(path, lease),
    clear: () => rm(path, { force: true }),
    readNewest: () => readAnswer(`${path}.newest`),
    writeNewest: (answer) => writeAnswer(`${path}.newest`, answer),
  };
}

/**
 * A download into `path`: the bytes go to `path`.part (kept when the download is cut off, and
 * resumed from next time), renamed to `path` once their SHA-256 matched.
 */
export function fileDownloadTarget(path: string): DownloadTarget & { path: string } {
  const part = `${path}.part`;
  return {
    path,
    async *saved() {
      // No part file yet: a fresh start.
      if (!(await stat(part).catch(() => null))) return;
      for await (const chunk of createReadStream(part)) yield chunk as Uint8Array;
    },
    async write(chunk) {
      await mkdir(dirname(part), { recursive: true });
      await appendFile(part, chunk);
    },
    discard: () => rm(part, { force: true }),
    commit: () => rename(part, path),
  };
}
