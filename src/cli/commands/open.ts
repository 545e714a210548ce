import { spawn } from 'node:child_process';
import { connect, controlPlane } from '../service.js';
import type { Handler } from '../spec.js';
import type { openSpec } from './top.js';

/**
 * `svc open`: the dashboard of the emulator the other commands use (CONTRACT §10). Opens it with the
 * platform's opener (`SVC_BROWSER` names another command, `none` opens nothing); off a terminal, or
 * when nothing can be opened, it prints the URL, which is what a script or an SSH session needs
 * (without the control token: the dashboard asks for it).
 */
export const openCommand: Handler<typeof openSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  await controlPlane(ctx, target, 'Finding the emulator', client.getHealth({ timeoutMs: 3000 }));
  const url = `${target.baseUrl}/__emulator/ui/`;
  // SVC_BROWSER names the command (empty or `none`: open nothing); otherwise the platform's opener, on a terminal only.
  const chosen = ctx.env.SVC_BROWSER;
  const opener = chosen ?? (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const wanted = chosen !== undefined ? chosen !== '' && chosen !== 'none' : ctx.interactive;
  // A remote control plane's token goes to the browser in the fragment, which browsers never send to
  // a server (nor to its logs); the dashboard keeps it for the tab and clears the address bar. The
  // URL printed or returned never has it: terminals, CI logs and `--json` outputs are kept.
  const opened = wanted ? await launch(opener, target.controlToken ? `${url}#token=${encodeURIComponent(target.controlToken)}` : url) : false;
  const data = { url, opened };
  return { data, human: (c) => (opened ? `${c.green('opened')} ${url}` : url) };
};

function launch(command: string, url: string): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn(command, [url], { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
