// The product page's fixed content: what you get and demo videos.
import { PlayCircle } from "~/components/icons";

const FEATURES: { name: string; items: string[] }[] = [
  {
    name: "Aimbot",
    items: ["Smooth aim with adjustable FOV", "Bone selection: head, chest or pelvis", "Visibility checks", "Projectile drop prediction"],
  },
  { name: "Magic Bullet", items: ["Bullets curve onto the target", "Adjustable hit chance", "Works with every firearm"] },
  {
    name: "ESP Visuals",
    items: ["Player boxes, names and distance", "Health bars and held items", "Sleeper and NPC toggles", "Loot, stash and ore ESP"],
  },
  { name: "Movement", items: ["Spider climb", "Omni-sprint", "No fall damage"] },
  { name: "Weapon Mods", items: ["No recoil", "No spread", "Instant eoka", "Automatic fire for semi-auto weapons"] },
  { name: "Vehicles", items: ["Minicopter speed tuning", "Boat and car ESP", "Fuel display"] },
  { name: "Player List", items: ["Every player on the server", "Steam profile lookup", "Friend and enemy tags"] },
  { name: "Vehicle List", items: ["Every vehicle with distance", "Owner lookup", "Decay timers"] },
  { name: "Teleport", items: ["Teleport to map marker", "Return to last position"] },
  { name: "Server Tools", items: ["Admin detection alerts", "Server info overlay", "Team radar"] },
  { name: "World Mods", items: ["Always day", "Bright nights", "No grass or weather"] },
  { name: "Settings", items: ["Save and load configs", "Custom hotkeys", "Stream-proof overlay"] },
];

export function WhatYouGet() {
  return (
    <section aria-labelledby="what-you-get">
      <h2 id="what-you-get" className="text-xl font-bold">
        What You Get
      </h2>
      <div className="mt-4 divide-y divide-line rounded-xl border border-line bg-panel">
        {FEATURES.map((feature) => (
          <details key={feature.name} className="group">
            <summary className="flex cursor-pointer list-none items-center justify-between px-4 py-3 font-semibold hover:text-accent">
              {feature.name}
              <span aria-hidden className="text-muted transition-transform group-open:rotate-180">
                ▾
              </span>
            </summary>
            <ul className="space-y-1 px-4 pb-4 text-sm text-muted">
              {feature.items.map((item) => (
                <li key={item}>• {item}</li>
              ))}
            </ul>
          </details>
        ))}
      </div>
    </section>
  );
}

export function DemoVideos() {
  return (
    <section aria-labelledby="demo-videos">
      <h2 id="demo-videos" className="text-xl font-bold">
        Demo Videos
      </h2>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        {["Aimbot & Magic Bullet", "ESP & Loot Finder"].map((title) => (
          <div
            key={title}
            className="flex aspect-video flex-col items-center justify-center gap-2 rounded-xl border border-line bg-panel-2 text-muted"
          >
            <PlayCircle className="size-10" aria-hidden />
            <p className="text-sm font-semibold">{title}</p>
            <p className="text-xs">Video coming soon</p>
          </div>
        ))}
      </div>
    </section>
  );
}
