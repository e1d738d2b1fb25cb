// The shop's name and the copy that carries it, in one place.
export const BRAND = "Vertex";
export const TAGLINE_PARTS = ["Providing Clean Code for", "Dirty Wins"] as const;
export const TAGLINE = TAGLINE_PARTS.join(" ");
export const FOOTER_BLURB = "Professional Rust solutions with enterprise-grade features and security.";
export const COMMUNITY_SIZE = "5,000+";
