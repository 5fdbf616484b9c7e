// A promptfoo custom provider that answers from a fixed table, offline.
// The reply is chosen by the prompt's text; config.variant picks one of two "models".
const ANSWERS = {
  a: {
    'capital of France': 'The capital of France is Paris.',
    '2 + 2': '4',
    'JSON': { name: 'Ada', age: 36 },
    'greeting': 'Hello, "world"!\tBye.',
  },
  b: {
    'capital of France': 'paris',
    '2 + 2': 'The answer is 4.',
    'JSON': '{"name": "Ada", "age": "36"}',
    'greeting': 'Hi world',
  },
};

class FixedProvider {
  constructor(options = {}) {
    this.providerId = options.id || 'fixed-provider';
    this.config = options.config || {};
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt) {
    const table = ANSWERS[this.config.variant || 'a'];
    const key = Object.keys(table).find((k) => prompt.includes(k));
    const output = key === undefined ? 'I do not know.' : table[key];
    const text = typeof output === 'string' ? output : JSON.stringify(output);
    return {
      output,
      tokenUsage: { prompt: prompt.length, completion: text.length, total: prompt.length + text.length },
      cost: 0.0001 * text.length,
    };
  }
}

module.exports = FixedProvider;
