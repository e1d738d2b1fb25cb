// Receive addresses derived from the shop's extended public keys, checked against the published
// BIP84 test vectors (mnemonic "abandon … about"): Bitcoin from BIP84 itself, Litecoin from the
// same mnemonic at m/84'/2'/0'.
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { NETWORK, p2wpkh } from "@scure/btc-signer";
import { describe, expect, it } from "vitest";
import { parseAccountKey, receiveAddress } from "~/server/crypto/wallet.server";

const BTC_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const BTC_ZPRV = "zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE";
const LTC_ZPUB = "zpub6rPo5mF47z5coVm5rvWv7fv181awb7Vckn5Cf3xQXBVKu18kuBHDhNi1Jrb4br6vVD3ZbrnXemEsWJoR18mZwkUdzwD8TQnHDUCGxqZ6swA";

const base58check = createBase58check(sha256);

/** The same key written with other version bytes, as another wallet would export it. */
function withVersion(key: string, version: number): string {
  const bytes = base58check.decode(key);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(0, version);
  return base58check.encode(bytes);
}

function account(coin: "BTC" | "LTC", key: string) {
  const parsed = parseAccountKey(coin, key);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.value;
}

describe("shop wallets", () => {
  it("derive Bitcoin receive addresses m/84'/0'/0'/0/i as BIP84 publishes them", () => {
    const wallet = account("BTC", BTC_ZPUB);
    expect(receiveAddress(wallet, 0)).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(receiveAddress(wallet, 1)).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
  });

  it("derive Litecoin receive addresses m/84'/2'/0'/0/i from a zpub or the same key as Ltub", () => {
    expect(receiveAddress(account("LTC", LTC_ZPUB), 0)).toBe("ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh");
    const ltub = withVersion(LTC_ZPUB, 0x019da462);
    expect(ltub.startsWith("Ltub")).toBe(true);
    expect(receiveAddress(account("LTC", ltub), 0)).toBe("ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh");
  });

  it("accept the Bitcoin key written as xpub, with the same addresses and the same account id", () => {
    const xpub = withVersion(BTC_ZPUB, 0x0488b21e);
    expect(xpub.startsWith("xpub")).toBe(true);
    expect(receiveAddress(account("BTC", xpub), 0)).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(account("BTC", xpub).id).toBe(account("BTC", BTC_ZPUB).id);
    // A different wallet is a different account: its addresses are counted on their own.
    expect(account("LTC", LTC_ZPUB).id).not.toBe(account("BTC", BTC_ZPUB).id);
  });

  it("give every index its own address", () => {
    const wallet = account("BTC", BTC_ZPUB);
    const addresses = new Set(Array.from({ length: 50 }, (_, i) => receiveAddress(wallet, i)));
    expect(addresses.size).toBe(50);
  });

  it("write the same addresses as a Bitcoin transaction library does, for both coins", () => {
    for (const [coin, key, prefix] of [
      ["BTC", BTC_ZPUB, NETWORK.bech32],
      ["LTC", LTC_ZPUB, "ltc"],
    ] as const) {
      const wallet = account(coin, key);
      for (const index of [0, 1, 7, 1000, 2 ** 31 - 1]) {
        const publicKey = wallet.key.deriveChild(0).deriveChild(index).publicKey!;
        expect(receiveAddress(wallet, index)).toBe(p2wpkh(publicKey, { ...NETWORK, bech32: prefix }).address);
      }
    }
  });

  it("refuse private keys, wrapped-SegWit keys, keys of the other coin and garbage, saying why", () => {
    const refused = (coin: "BTC" | "LTC", key: string) => {
      const parsed = parseAccountKey(coin, key);
      return parsed.ok ? "accepted" : parsed.problem.message;
    };
    expect(refused("BTC", BTC_ZPRV)).toMatch(/private key/);
    expect(refused("BTC", withVersion(BTC_ZPUB, 0x049d7cb2))).toMatch(/wrapped SegWit/);
    expect(refused("BTC", withVersion(LTC_ZPUB, 0x019da462))).toMatch(/not a BTC extended public key/);
    expect(refused("LTC", "not-a-key")).toMatch(/not an extended public key/);
    expect(refused("BTC", `${BTC_ZPUB.slice(0, -1)}x`)).toMatch(/not an extended public key/);
  });
});
