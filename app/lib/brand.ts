// The shop's name and the copy that carries it, in one place.
export const BRAND = "Vertex";
export const TAGLINE = "Providing Clean Code for Dirty Wins";
export const FOOTER_BLURB = "Professional Rust solutions with enterprise-grade features and security.";
export const COMMUNITY_SIZE = "5,000+";
