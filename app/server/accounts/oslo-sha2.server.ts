// What the Worker build puts in place of @oslojs/crypto/sha2 for arctic (decision 119). The Discord
// client uses one function of it, SHA-256 for the PKCE challenge; the hash library the Worker
// already carries has the same function, so the second copy of the SHA-2 family stays out.
export { sha256 } from "@noble/hashes/sha2.js";
