// pm2's ecosystem file for a bot project (docs/deployment.md): pm2 start ecosystem.config.cjs
module.exports = {
  apps: [
    {
      name: "my-bot",
      cwd: __dirname,
      // The bot's own executable, run directly (interpreter "none"): no npx, no wrapper, so the
      // signal pm2 sends on stop reaches the bot.
      script: "node_modules/.bin/bot",
      args: ["start"],
      interpreter: "none",
      // pm2 stops with SIGINT, then SIGKILL after this long: longer than stopTimeoutMs.
      kill_timeout: 30000,
      // 2 is a config or storage problem: restarting cannot fix it.
      stop_exit_codes: [0, 2],
      env: { NODE_ENV: "production" },
    },
  ],
};
