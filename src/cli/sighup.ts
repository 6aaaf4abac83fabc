// SIGHUP during `bot start`: logged and survived (no reload yet), instead of Node's default of dying without a word.
import type { Logger } from "../log/logger.js";

/** What `bot start` says on SIGHUP. */
export const SIGHUP_MESSAGE =
  "SIGHUP received: reloading the configuration is not supported yet, so the bot keeps running as it is; restart it (systemctl restart, docker restart) to apply a new config";

/**
 * Catches SIGHUP from now until `release`: Node's default is to exit at once, silently, with a
 * status systemd takes for a clean stop (so `Restart=on-failure` leaves the bot down). Reports
 * each on standard error until `use` hands it the logger, then as a warning there.
 *
 * @example
 * const hup = holdSighup((line) => out.stderr(line));
 * hup.use(log);
 * hup.release();
 */
export function holdSighup(stderr: (line: string) => void): {
  use(log: Logger): void;
  release(): void;
} {
  let log: Logger | undefined;
  const onHup = (): void => {
    if (log) log.warn({ signal: "SIGHUP" }, SIGHUP_MESSAGE);
    else stderr(SIGHUP_MESSAGE);
  };
  process.on("SIGHUP", onHup);
  return {
    use(logger) {
      log = logger;
    },
    release() {
      process.off("SIGHUP", onHup);
    },
  };
}
