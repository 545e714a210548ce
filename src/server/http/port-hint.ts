/**
 * The links an emulator writes (an invoice's `checkoutUrl`, a merchant's `bindUrl`) name its base URL,
 * which is the address it listens on unless a public URL is set. Published on another port (`docker
 * run -p 127.0.0.1:4748:4747`), the emulator cannot know the port its clients use, and those links
 * point at whatever holds 4747 on their side (issue 38). The first request that names another port in
 * its Host says so, once: a warning to set SVC_PUBLIC_URL. Only for an emulator listening on every
 * address (a container, or `--host 0.0.0.0`) without a public URL: a loopback one is reached on its own
 * port, and a public URL is the user's answer already.
 */
export function portHint(options: { host: string; publicUrl: string | null; baseUrl: () => string }): (hostHeader: string | undefined) => string | null {
  if (options.publicUrl !== null || !['0.0.0.0', '::'].includes(options.host)) return () => null;
  let said = false;
  return (hostHeader) => {
    if (said || hostHeader === undefined) return null;
    let requested: URL;
    let own: URL;
    try {
      requested = new URL(`http://${hostHeader}`);
      own = new URL(options.baseUrl());
    } catch {
      return null;
    }
    if (portOf(requested) === portOf(own)) return null;
    said = true;
    const suggested = `http://${requested.host}`;
    return `a request came to ${requested.host}, but the links this emulator writes (checkoutUrl, bindUrl) name ${own.origin}: published on another port, set SVC_PUBLIC_URL=${suggested} (or --public-url) so that they point here`;
  };
}

const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');
