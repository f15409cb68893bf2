// Undo and redo of everything the editor changes: each change records the state before it
// (a JSON snapshot); a run of edits of one field within a typing pause is one step.

export const TYPING_PAUSE_MS = 1000;
export const MAX_HISTORY = 200;

export class History {
  constructor({ pause = TYPING_PAUSE_MS, limit = MAX_HISTORY } = {}) {
    this.pause = pause;
    this.limit = limit;
    this.undoStack = [];
    this.redoStack = [];
    this.last = { key: null, at: -Infinity };
  }

  /** Records `state` (the state before a change); `key` joins a run of edits of one field. */
  remember(state, key = null, now = Date.now()) {
    const joins = key !== null && key === this.last.key && now - this.last.at < this.pause;
    this.last = { key, at: now };
    if (joins) return;
    this.undoStack.push(JSON.stringify(state));
    if (this.undoStack.length > this.limit) this.undoStack.shift();
    this.redoStack = [];
  }

  /** The state before the last change, given the current one; null when there is none. */
  undo(current) {
    return this.#move(this.undoStack, this.redoStack, current);
  }

  redo(current) {
    return this.#move(this.redoStack, this.undoStack, current);
  }

  get canUndo() {
    return this.undoStack.length > 0;
  }

  get canRedo() {
    return this.redoStack.length > 0;
  }

  #move(from, to, current) {
    const snapshot = from.pop();
    if (snapshot === undefined) return null;
    to.push(JSON.stringify(current));
    this.last = { key: null, at: -Infinity };
    return JSON.parse(snapshot);
  }
}
