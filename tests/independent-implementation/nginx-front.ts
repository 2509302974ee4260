// A real nginx (Debian's nginx-light, /usr/sbin/nginx; scripts/ensure-nginx.sh installs it) before
// the independent implementation: TLS with its own certificate for `*.api.localhost` and
// `*.sandbox.api.localhost`, HTTP/2 and HTTP/1.1 by ALPN, proxying over HTTPS with the client's
// SNI and Host passed on, so the implementation's own SNI/Host check still holds. It runs as the
// current user with its own prefix, configuration, pid and logs in a temporary directory,
// listening on 127.0.0.1 only; `reload()` is `nginx -s reload`, which sends GOAWAY to every
// HTTP/2 connection and closes idle keep-alive ones, as every deploy of such a front does.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { makeCertificates } from './certificates.ts';
import { unusedPort } from './run-support.ts';
import { scratchDirectory } from '../support/scratch.ts';

export const NGINX = '/usr/sbin/nginx';

export interface NginxFront {
  port: number;
  caPem: string;
  /** `nginx -s reload`; resolves once nginx has taken the signal. */
  reload(): void;
  close(): Promise<void>;
}

export async function startNginxFront(upstreamPort: number): Promise<NginxFront> {
  const prefix = scratchDirectory('nginx-front-');
  for (const directory of ['logs', 'temp']) mkdirSync(join(prefix, directory));
  const certificates = await makeCertificates('Nginx Front Test CA', [
    '*.api.localhost',
    '*.sandbox.api.localhost',
  ]);
  writeFileSync(join(prefix, 'cert.pem'), certificates.cert);
  writeFileSync(join(prefix, 'key.pem'), certificates.key);
  const port = await unusedPort();
  const conf = join(prefix, 'nginx.conf');
  const temp = (name: string): string => `${name}_temp_path ${join(prefix, 'temp', name)};`;
  writeFileSync(
    conf,
    `${process.getuid?.() === 0 ? `user ${userInfo().username};\n` : ''}daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 512; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port} ssl http2;
    server_name *.api.localhost *.sandbox.api.localhost;
    ssl_certificate ${join(prefix, 'cert.pem')};
    ssl_certificate_key ${join(prefix, 'key.pem')};
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
      proxy_pass https://127.0.0.1:${upstreamPort};
      proxy_http_version 1.1;
      proxy_ssl_server_name on;
      proxy_ssl_name $ssl_server_name;
      # A resumed upstream session can carry another tenant's SNI: each connection makes its own.
      proxy_ssl_session_reuse off;
      proxy_set_header Host $http_host;
      proxy_pass_request_headers on;
    }
  }
}
`,
  );
  const args = ['-p', prefix, '-c', conf, '-e', join(prefix, 'logs', 'error.log')];
  const master: ChildProcess = spawn(NGINX, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  master.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Up when its pid file is written (bounded: 10 s).
  for (let waited = 0; !existsSync(join(prefix, 'nginx.pid')); waited += 50) {
    if (waited > 10_000 || master.exitCode !== null) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const exited = new Promise<void>((resolve) => master.once('exit', () => resolve()));
  return {
    port,
    caPem: certificates.caPem,
    reload: () => {
      const result = spawnSync(NGINX, ['-s', 'reload', ...args], { encoding: 'utf8', timeout: 10_000 });
      if (result.status !== 0) throw new Error(`nginx -s reload failed: ${result.stderr}`);
    },
    close: async () => {
      master.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
