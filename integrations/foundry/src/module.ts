/**
 * tabletrail-bridge: tabletrail referees every token move of a Foundry VTT v13 table.
 * The entry Foundry loads (module.json `esmodules`): it binds the bridge at `init` and adds the GM's buttons.
 */

import { Bridge, MODULE_ID, type SceneLike } from "./foundry/bridge.js";
import { factsOf, install, mappingOf, sceneDataOf } from "./foundry/hooks.js";
import type { Link } from "./logic/types.js";

let bridge: Bridge | undefined;

function sceneOf(scene: Scene.Implementation): SceneLike {
  return { id: scene.id, name: scene.name, tokens: scene.tokens.contents };
}

Hooks.once("init", () => {
  bridge = install(
    {
      hooks: Hooks,
      settings: game.settings!,
      chat: ChatMessage,
      user: game.user!,
      tokenClass: CONFIG.Token.documentClass,
      notify: (kind, text) => ui.notifications?.[kind](text),
      saveFile: (text, type, filename) => foundry.utils.saveDataToFile(text, type, filename),
      setCombatTurn: async (tokenId) => {
        const combat = game.combat;
        const index = combat?.turns.findIndex((c) => c.tokenId === tokenId) ?? -1;
        if (combat && index >= 0 && combat.turn !== index) await combat.update({ turn: index });
      },
      systemId: game.system?.id ?? "",
      fetch: (...args) => fetch(...args),
    },
    (scene) => (game.scenes?.get(scene.id ?? "")?.getFlag(MODULE_ID, "link") as Link | undefined),
    (scene, link) => game.scenes!.get(scene.id ?? "")!.setFlag(MODULE_ID, "link", link),
    (token, x, y) => {
      const doc = canvas?.scene?.tokens.get(token.id ?? "");
      return doc ? doc.move({ x, y, action: "displace" }, { tabletrailSync: true } as never) : Promise.resolve(false);
    },
  );
});

Hooks.on("canvasReady", () => {
  if (bridge && canvas?.scene) bridge.open(sceneOf(canvas.scene));
});

Hooks.on("getSceneControlButtons", (controls) => {
  if (!game.user?.isGM) return;
  const tools = controls.tokens?.tools;
  if (!tools) return;
  tools["tabletrail-referee"] = {
    name: "tabletrail-referee",
    title: "Referee this combat with tabletrail",
    icon: "fa-solid fa-scale-balanced",
    order: 100,
    button: true,
    onChange: () => void referee(),
  };
  tools["tabletrail-undo"] = {
    name: "tabletrail-undo",
    title: "Undo last move (tabletrail)",
    icon: "fa-solid fa-rotate-left",
    order: 101,
    button: true,
    onChange: () => void bridge?.undoLast(),
  };
  tools["tabletrail-bundle"] = {
    name: "tabletrail-bundle",
    title: "Download the encounter's bundle (tabletrail)",
    icon: "fa-solid fa-file-arrow-down",
    order: 102,
    button: true,
    onChange: () => void bridge?.downloadBundle(),
  };
});

/** The chat card's "why?": tabletrail's own explanation, shown in a dialog. */
Hooks.on("renderChatMessageHTML", (_message, html) => {
  for (const button of html.querySelectorAll<HTMLButtonElement>("[data-tabletrail-why]")) {
    button.addEventListener("click", async () => {
      const text = (await bridge?.why(Number(button.dataset.tabletrailWhy))) ?? "";
      await foundry.applications.api.DialogV2.prompt({ window: { title: "tabletrail: why?" }, content: `<pre>${text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</pre>` });
    });
  }
});

async function referee(): Promise<void> {
  const scene = canvas?.scene;
  if (!bridge || !scene) return;
  const source = scene.toObject();
  await bridge.referee(sceneOf(scene), sceneDataOf(source), factsOf(scene.tokens.contents), mappingOf(game.settings!, game.system?.id ?? ""));
  bridge.open(sceneOf(scene));
}
