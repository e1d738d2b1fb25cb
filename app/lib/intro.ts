// The intro splash's once-per-session flag, and the tiny inline script that reads it before the
// first paint. The script is static, so the CSP allows it by hash rather than by nonce.
export const INTRO_FLAG = "hasSeenIntro";
export const INTRO_MS = 3000;

export const introHeadScript = `try{if(sessionStorage.getItem("${INTRO_FLAG}"))document.documentElement.dataset.introSeen=""}catch(e){}`;
