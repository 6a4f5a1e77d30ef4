/**
 * What foundry-vtt-types 13.345.1 does not type yet: the v13 movement hooks, and this module's settings and
 * scene flag. Declared here, once, so every use is checked.
 */

import type { Link } from "../logic/types.js";

/** A v13 scene control as the bridge adds tools to it. */
export interface SceneControlLike {
  tools: Record<string, { name: string; title: string; icon: string; order: number; button?: boolean; onChange?: () => void }>;
}

declare module "fvtt-types/configuration" {
  /** The bridge binds its hooks at `init` and acts after `ready`: game's settings, user and scenes exist. */
  interface AssumeHookRan {
    ready: never;
  }

  namespace Hooks {
    interface HookConfig {
    /** Before a token moves, on the moving client: false vetoes the movement (synchronous). */
    preMoveToken: (
      document: TokenDocument.Implementation,
      movement: TokenDocument.MovementData,
      operation: TokenDocument.Database.UpdateOperation,
    ) => boolean | void;
    /** The scene controls being built (v13: a record of controls, each with a record of tools). */
    getSceneControlButtons: (controls: Record<string, SceneControlLike>) => void;
    /** After a token moved, on every client. */
    moveToken: (
      document: TokenDocument.Implementation,
      movement: TokenDocument.MovementOperation,
      operation: TokenDocument.Database.UpdateOperation,
      user: User.Implementation,
    ) => void;
    }
  }

  interface SettingConfig {
    "tabletrail-bridge.serverUrl": string;
    "tabletrail-bridge.gmToken": string;
    "tabletrail-bridge.playerToken": string;
    "tabletrail-bridge.ruleset": string;
    "tabletrail-bridge.turns": string;
    "tabletrail-bridge.mapping": string;
  }

  interface FlagConfig {
    Scene: {
      "tabletrail-bridge": {
        link?: Link;
      };
    };
  }
}

export {};
