// The shop's wallets, seen from the server: an account-level extended public key per coin (BIP84,
// native SegWit), from which each order gets the next receive address m/…/0/i. Only public keys
// are ever read here; nothing on the server can spend (decision 032). The setup script (run by
// Node) checks the keys an owner types with `walletKeySchema`, so this file names its imports with
// their extension.
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { bech32, createBase58check } from "@scure/base";
import { HDKey } from "@scure/bip32";
import * as v from "valibot";
import type { CryptoCoin } from "../../lib/crypto-orders.ts";
import { fail, ok, type Result } from "../../lib/result.ts";

const base58check = createBase58check(sha256);

/** Version bytes of the extended public keys wallets export for a BIP84 account, per coin. */
const PUBLIC_VERSIONS: Record<CryptoCoin, Record<number, string>> = {
  // Electrum and Sparrow export zpub for native SegWit; some wallets write the same key as xpub.
  BTC: { 0x0488b21e: "xpub", 0x04b24746: "zpub" },
  // Litecoin wallets use Ltub/Mtub, or (Electrum-LTC) Bitcoin's xpub/zpub bytes for the same key.
  LTC: { 0x0488b21e: "xpub", 0x04b24746: "zpub", 0x019da462: "Ltub", 0x01b26ef6: "Mtub" },
};

/** Extended private keys: refused with a warning, since whoever holds one can spend the wallet. */
const PRIVATE_VERSIONS = new Set([0x0488ade4, 0x04b2430c, 0x049d7878, 0x019d9cfe, 0x01b26792]);
/** BIP49 (wrapped SegWit) keys: valid, but they stand for addresses of another kind. */
const WRAPPED_SEGWIT_VERSIONS = new Set([0x049d7cb2]);

const BECH32_PREFIX: Record<CryptoCoin, string> = { BTC: "bc", LTC: "ltc" };

export interface AccountKey {
  coin: CryptoCoin;
  key: HDKey;
  /** Names this wallet account without revealing it: the address cursor is kept per account. */
  id: string;
}

/** Reads a configured extended public key; the problem says what is wrong with it in the shop owner's words. */
export function parseAccountKey(coin: CryptoCoin, text: string): Result<AccountKey> {
  const trimmed = text.trim();
  let payload: Uint8Array;
  try {
    payload = base58check.decode(trimmed);
  } catch {
    return fail(
      "invalid",
      `CRYPTO_${coin}_XPUB is not an extended public key (it should start with zpub or xpub${coin === "LTC" ? ", Ltub or Mtub" : ""})`,
    );
  }
  const version = payload.length === 78 ? new DataView(payload.buffer, payload.byteOffset).getUint32(0) : -1;
  if (PRIVATE_VERSIONS.has(version))
    return fail(
      "invalid",
      `CRYPTO_${coin}_XPUB holds a private key: configure the account's public key (zpub) instead, and move the funds if the private key was shared`,
    );
  if (WRAPPED_SEGWIT_VERSIONS.has(version))
    return fail("invalid", `CRYPTO_${coin}_XPUB is a wrapped SegWit key (ypub): export the native SegWit (zpub) key of a BIP84 wallet`);
  if (!(version in PUBLIC_VERSIONS[coin])) return fail("invalid", `CRYPTO_${coin}_XPUB is not a ${coin} extended public key`);
  try {
    const key = HDKey.fromExtendedKey(trimmed, { public: version, private: 0 });
    return ok({ coin, key, id: bytesToHex(sha256(key.publicKey!)).slice(0, 16) });
  } catch {
    return fail("invalid", `CRYPTO_${coin}_XPUB is not a valid extended public key`);
  }
}

/**
 * The receive address `index` of the account (path 0/index): native SegWit, bc1… or ltc1…. A P2WPKH
 * address is witness version 0 and the key's HASH160 in bech32 (BIP 141, BIP 173), written with
 * the audited encoder rather than a transaction library (decision 118).
 */
export function receiveAddress(account: AccountKey, index: number): string {
  const publicKey = account.key.deriveChild(0).deriveChild(index).publicKey;
  if (!publicKey) throw new Error("Could not derive a receive address");
  return bech32.encode(BECH32_PREFIX[account.coin], [0, ...bech32.toWords(ripemd160(sha256(publicKey)))]);
}

/** The published BIP84 test wallets (seed "abandon … about"): anyone can spend from them. */
export const DEMO_WALLETS: Record<CryptoCoin, string> = {
  BTC: "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs",
  LTC: "zpub6rPo5mF47z5coVm5rvWv7fv181awb7Vckn5Cf3xQXBVKu18kuBHDhNi1Jrb4br6vVD3ZbrnXemEsWJoR18mZwkUdzwD8TQnHDUCGxqZ6swA",
};

const DEMO_ACCOUNT_IDS = (Object.keys(DEMO_WALLETS) as CryptoCoin[]).flatMap((coin) => {
  const parsed = parseAccountKey(coin, DEMO_WALLETS[coin]);
  return parsed.ok ? [parsed.value.id] : [];
});

/** However it is written (zpub, xpub, Ltub), a demo key is the same account. */
export const isDemoWallet = (account: AccountKey) => DEMO_ACCOUNT_IDS.includes(account.id);

export const demoWalletProblem = (coin: CryptoCoin) => `CRYPTO_${coin}_XPUB is a public demo wallet; set your own wallet's key`;

/** A wallet key a live shop may take payments into: a valid account key of the coin, and not a demo wallet. */
export const walletKeySchema = (coin: CryptoCoin) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const parsed = parseAccountKey(coin, dataset.value);
      if (!parsed.ok) addIssue({ message: parsed.problem.message });
      else if (isDemoWallet(parsed.value)) addIssue({ message: demoWalletProblem(coin) });
    }),
  );
