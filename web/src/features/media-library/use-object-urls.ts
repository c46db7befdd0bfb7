import { useEffect, useState } from 'react';

/**
 * Fetches each file and turns it into a local object URL (spec: media downloads), so a download
 * does not leave the page. Until a file is fetched, or when it cannot be (network, CORS), its
 * original URL is used. Object URLs are revoked when the list changes or the page goes.
 */
export function useObjectUrls(urls: readonly string[]): (url: string) => string {
  const key = urls.join('\n');
  const [objectUrls, setObjectUrls] = useState<ReadonlyMap<string, string>>(() => new Map());

  useEffect(() => {
    const wanted = key === '' ? [] : [...new Set(key.split('\n'))];
    if (wanted.length === 0) return;
    const controller = new AbortController();
    const created: string[] = [];
    for (const url of wanted) {
      fetch(url, { signal: controller.signal })
        .then(async (response) => {
          if (!response.ok) throw new Error(`status ${String(response.status)}`);
          return response.blob();
        })
        .then((blob) => {
          if (controller.signal.aborted) return;
          const objectUrl = URL.createObjectURL(blob);
          created.push(objectUrl);
          setObjectUrls((current) => new Map(current).set(url, objectUrl));
        })
        .catch(() => {
          // the original URL stays in place
        });
    }
    return () => {
      controller.abort();
      for (const objectUrl of created) URL.revokeObjectURL(objectUrl);
      setObjectUrls(new Map());
    };
  }, [key]);

  return (url) => objectUrls.get(url) ?? url;
}
