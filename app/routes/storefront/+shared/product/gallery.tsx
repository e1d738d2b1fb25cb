// Product images: one large, up to five thumbnails to switch between.
import { useState } from "react";
import type { ProductImage } from "~/lib/catalogue";

export function Gallery({ images, title }: { images: ProductImage[]; title: string }) {
  const shown = images.slice(0, 5);
  const [active, setActive] = useState(0);
  const current = shown[active];
  return (
    <div className="space-y-3">
      <div className="aspect-square overflow-hidden rounded-xl border border-line bg-panel">
        {current ? (
          <img
            src={current.url}
            alt={current.altText ?? title}
            width={800}
            height={800}
            fetchPriority="high"
            className="size-full object-cover"
          />
        ) : (
          <div className="flex size-full items-center justify-center text-muted">No image</div>
        )}
      </div>
      {shown.length > 1 ? (
        <div className="grid grid-cols-5 gap-2" role="group" aria-label="Product images">
          {shown.map((image, i) => (
            <button
              key={image.url}
              type="button"
              onClick={() => setActive(i)}
              aria-label={`Show image ${i + 1} of ${shown.length}`}
              aria-pressed={i === active}
              className={`aspect-square overflow-hidden rounded-md border-2 ${i === active ? "border-accent" : "border-transparent opacity-70 hover:opacity-100"}`}
            >
              <img
                src={image.thumbnailUrl}
                alt=""
                width={120}
                height={120}
                loading="lazy"
                fetchPriority="low"
                className="size-full object-cover"
              />
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
