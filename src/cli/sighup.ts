// SIGHUP during `bot start`: a reload of the config once the bot runs (before that, logged and survived, instead of Node's default of dying without a word).
import type { Logger } from "../log/logger.js";

/** What `bot start` says on a SIGHUP before the bot is ready. */
export const SIGHUP_EARLY_MESSAGE =
  "SIGHUP received while the bot starts: nothing to reload yet, so the bot goes on starting; send it again once it is ready";

/**
 * Catches SIGHUP from now until `release`: Node's default is to exit at once, silently, with a
 * status systemd takes for a clean stop (so `Restart=on-failure` leaves the bot down). Until
 * `reloadWith` hands it the reload, each is reported (on standard error until `use` hands it the
 * logger, then as a warning there); from then on each runs the reload.
 *
 * @example
 * const hup = holdSighup((line) => out.stderr(line));
 * hup.use(log);
 * hup.reloadWith(() => reloader.reload());
 * hup.release();
 */
export function holdSighup(stderr: (line: string) => void): {
  use(log: Logger): void;
  reloadWith(reload: () => Promise<unknown>): void;
  release(): void;
} {
  let log: Logger | undefined;
  let reload: (() => Promise<unknown>) | undefined;
  const onHup = (): void => {
    if (reload) {
      log?.info({ signal: "SIGHUP" }, "SIGHUP received: reloading the configuration");
      void reload();
    } else if (log) log.warn({ signal: "SIGHUP" }, SIGHUP_EARLY_MESSAGE);
    else stderr(SIGHUP_EARLY_MESSAGE);
  };
  process.on("SIGHUP", onHup);
  return {
    use(logger) {
      log = logger;
    },
    reloadWith(fn) {
      reload = fn;
    },
    release() {
      process.off("SIGHUP", onHup);
    },
  };
}
