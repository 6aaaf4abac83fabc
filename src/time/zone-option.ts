// The one spelling of the time-zone option, `timeZone` (as in Intl); the old `timezone` is read with a deprecation warning.

/** An options object that may carry the time zone under either spelling. */
export interface TimeZoneSpellings {
  /** IANA time zone (`Europe/Paris`): the spelling used everywhere. */
  timeZone?: string | undefined;
  /** @deprecated Spell it `timeZone`; still read, with a warning. */
  timezone?: string | undefined;
}

const warned = new Set<string>();

/**
 * The time zone an options object gives: `timeZone`, else the deprecated `timezone` (warning once
 * per `where` through `process.emitWarning`, code `TOPICBOT_TIMEZONE`). `where` names the
 * option's home (`bot.config.yaml: timezone`, `bot.cron`) so the warning says what to change.
 *
 * @example
 * timeZoneOption({ timezone: "UTC" }, "bot.cron"); // "UTC", and a DeprecationWarning
 */
export function timeZoneOption(options: TimeZoneSpellings, where: string): string | undefined {
  if (options.timezone === undefined) return options.timeZone;
  if (!warned.has(where)) {
    warned.add(where);
    process.emitWarning(`${where}: the option \`timezone\` is deprecated; spell it \`timeZone\``, {
      type: "DeprecationWarning",
      code: "TOPICBOT_TIMEZONE",
    });
  }
  return options.timeZone ?? options.timezone;
}
