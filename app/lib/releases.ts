// Release channels and what each needs: beta builds only for licences with the `beta` entitlement.
export const RELEASE_CHANNELS = ["stable", "beta"] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];

/** The entitlement a channel itself requires (decision 055). */
export const CHANNEL_ENTITLEMENT: Record<ReleaseChannel, string | null> = { stable: null, beta: "beta" };

/** The entitlements a release needs: its channel's and its own. */
export const releaseNeeds = (release: { channel: ReleaseChannel; entitlement: string | null }) =>
  [CHANNEL_ENTITLEMENT[release.channel], release.entitlement].filter((name): name is string => name !== null);

/** A SHA-256 as members compare it: lower-case hex. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
