// The assistant as bot.config.yaml loads it, on the AI SDK mock model: `bot dev` runs it with no provider and no key.
import { mockModel } from "topicbot/ai";
import { assistant } from "./index.js";

/**
 * Swap `mockModel()` for your provider's model (`openai("gpt-4.1-mini")` from `@ai-sdk/openai`)
 * to answer for real; `bot dev --mock-model` then still tries it on the mock.
 */
export default assistant(mockModel());
