// The players' web page (issue 16): the interactive map and the orders editor; in an FT2
// campaign (issue 20, `data.rules` "ft2"), the same page over his fleet counters, his scans
// and the encounters' decisions (`ft2Desk` below), with the same form, sync and helpers.
//
// Plain script, no build step, nothing from elsewhere; served by the app itself
// (`/static/umpire.js`). It reads the page's data (`#umpire-data`: the player's own map and
// orders, built by the server from his view alone) and talks only to its own server:
// `/reach.json` (where a unit can go, and by which route: the very check submission makes),
// `/orders/text` (the editor's orders written as the orders file) and `/orders/read` (an
// orders file read back into the editor). Orders are sent as the orders text, through the
// same form and the same service call as a file. Every text is set with textContent.
(function () {
  "use strict";
  var dataNode = document.getElementById("umpire-data");
  if (!dataNode) return;
  var data = JSON.parse(dataNode.textContent);
  var ft2 = data.rules === "ft2";
  // The FT2 desk has no 004 map (units, colonies, command range): its systems only.
  var map = ft2 ? { units: [], systems: data.systems, colonies: [], sightings: [], battles: [], command_range: [], entry: "" } : data.map;
  var svgNS = "http://www.w3.org/2000/svg";
  var svg = document.querySelector(".mapbox svg");
  var form = document.getElementById("orders-form");
  var editing = !!document.getElementById("unit-editor");
  var doc = data.document;
  var selected = null;
  var route = null; // {unit, to, answer}
  var dirty = false;
  var syncing = null;
  var parts = {}; // unit -> the new unit its split move makes (named by the server)
  var partOf = {}; // a new unit's id -> the unit it splits from (every name seen)
  var formed = []; // task forces these orders form, as the server names them: moved as units

  // ------------------------------------------------------------------ small helpers

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") node.textContent = attrs[k];
        else if (k === "on") Object.keys(attrs.on).forEach(function (e) { node.addEventListener(e, attrs.on[e]); });
        else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function byId(list, key) { var out = {}; list.forEach(function (x) { out[x[key]] = x; }); return out; }
  var units = byId(map.units, "id");
  var systemAt = byId(map.systems, "hex");
  var inRange = {};
  map.command_range.forEach(function (h) { inRange[h] = true; });
  function where(unit) { return unit.hex || map.entry; }
  function short(id) { var i = id.lastIndexOf("-"); return i >= 0 ? id.slice(i + 1) : id; }
  function hexName(h) { var s = systemAt[h]; return s ? h + " " + s.name : h; }
  function csrf() { var i = document.querySelector("input[name=csrf]"); return i ? i.value : ""; }
  function post(url, fields) {
    var body = new FormData();
    body.append("csrf", csrf());
    Object.keys(fields).forEach(function (k) { body.append(k, fields[k]); });
    return fetch(url, { method: "POST", body: body, credentials: "same-origin" }).then(function (r) { return r.json(); });
  }

  // ------------------------------------------------------------------ the map

  var cells = {};
  if (svg) {
    svg.querySelectorAll("polygon.hex").forEach(function (p) { cells[p.getAttribute("data-hex")] = p; });
    svg.querySelectorAll("title").forEach(function (t) {
      // The page shows details in its panel; tooltips would cover the map on a phone.
      if (t.parentNode !== svg) t.parentNode.setAttribute("aria-label", t.textContent);
    });
  }
  function centre(h) {
    var p = cells[h];
    if (!p) return null;
    var pts = p.getAttribute("points").trim().split(/\s+/).map(function (xy) { return xy.split(",").map(Number); });
    var x = 0, y = 0;
    pts.forEach(function (q) { x += q[0]; y += q[1]; });
    return [x / pts.length, y / pts.length];
  }
  var overlay = null;
  if (svg) {
    overlay = document.createElementNS(svgNS, "g");
    overlay.setAttribute("id", "selection");
    overlay.setAttribute("pointer-events", "none");
    svg.appendChild(overlay);
  }
  function shade(h, fill, stroke, cls) {
    var p = cells[h];
    if (!p || !overlay) return;
    var q = document.createElementNS(svgNS, "polygon");
    q.setAttribute("points", p.getAttribute("points"));
    q.setAttribute("fill", fill);
    q.setAttribute("fill-opacity", "0.28");
    q.setAttribute("stroke", stroke);
    q.setAttribute("stroke-width", "2");
    q.setAttribute("class", cls);
    q.setAttribute("data-hex", h);
    overlay.appendChild(q);
  }
  function courseLine(from, to, colour, width, cls) {
    var a = centre(from), b = centre(to);
    if (!a || !b || !overlay) return;
    var q = document.createElementNS(svgNS, "line");
    q.setAttribute("x1", a[0]); q.setAttribute("y1", a[1]);
    q.setAttribute("x2", b[0]); q.setAttribute("y2", b[1]);
    q.setAttribute("stroke", colour);
    q.setAttribute("stroke-width", width);
    q.setAttribute("stroke-dasharray", "3 3");
    q.setAttribute("class", cls);
    overlay.appendChild(q);
  }
  function drawSelection() {
    if (!overlay) return;
    clear(overlay);
    if (editing) {
      // Every destination given in the editor so far, sent or not.
      (doc.moves || []).forEach(function (m) {
        var unit = units[m.unit];
        if (unit && m.to && m.to !== where(unit)) courseLine(where(unit), m.to, "#ffffff", 1.2, "course");
      });
    }
    if (!selected) return;
    var unit = units[selected];
    (unit.reach || []).forEach(function (h) { shade(h, "#7fd0ff", "#7fd0ff", "reachable"); });
    shade(where(unit), "#ffe066", "#ffe066", "here");
    if (route && route.unit === selected && route.answer && !route.answer.problem) {
      var hexes = [where(unit)].concat(route.answer.path || []);
      var pts = hexes.map(centre).filter(Boolean).map(function (c) { return c[0].toFixed(1) + "," + c[1].toFixed(1); });
      var line = document.createElementNS(svgNS, "polyline");
      line.setAttribute("points", pts.join(" "));
      line.setAttribute("fill", "none");
      line.setAttribute("stroke", "#ffe066");
      line.setAttribute("stroke-width", "3");
      line.setAttribute("class", "route");
      overlay.appendChild(line);
      (route.answer.plot || []).forEach(function (h) { shade(h, "none", "#ffb000", "plot"); });
    }
  }

  function hexFrom(target) {
    var marker = target.closest && target.closest(".marker");
    if (marker && marker.getAttribute("data-key")) return { unit: marker.getAttribute("data-key").split(" ")[0] };
    var system = target.closest && target.closest(".system");
    if (system) {
      var name = system.getAttribute("data-name");
      for (var i = 0; i < map.systems.length; i++) if (map.systems[i].name === name) return { hex: map.systems[i].hex };
    }
    var hex = target.closest && target.closest("[data-hex]");
    return hex ? { hex: hex.getAttribute("data-hex") } : null;
  }

  // ------------------------------------------------------------------ details

  var details = document.getElementById("details");
  function showDetails(title, lines) {
    if (!details) return;
    clear(details).appendChild(el("h2", { text: title }));
    var list = el("ul");
    lines.forEach(function (line) { list.appendChild(el("li", { text: line })); });
    details.appendChild(list);
  }
  function unitLines(unit) {
    var lines = [unit.what + (unit.hex ? ", at " + hexName(unit.hex) : ", waiting to enter at " + map.entry), "combat order: " + unit.order];
    if (unit.members && unit.members.length) lines.push("ships: " + unit.members.join(", "));
    var move = moveOf(unit.id, false);
    var to = move && move.to ? move.to : unit.to;
    if (to) lines.push((unit.plotted ? "plotted to " : "ordered to ") + hexName(to));
    if (unit.problem) lines.push("cannot move this turn: " + unit.problem);
    else lines.push("can reach " + unit.reach.length + " hexes this turn (plots " + unit.horizon + " turn(s) ahead)");
    return lines;
  }
  function hexDetails(h) {
    var lines = [];
    var system = systemAt[h];
    var title = "Hex " + h;
    if (system) {
      title = system.name + " (" + h + ")";
      lines.push(system.colour + " star" + (system.explored ? ", explored" : ", unexplored"));
      system.planets.forEach(function (p) {
        lines.push(p.id + ": orbit " + p.orbit + ", " + p.type + ", capacity " + p.capacity + (p.mineral_rich ? ", mineral-rich" : ""));
      });
    }
    map.colonies.forEach(function (c) {
      if (c.hex !== h) return;
      if (c.own) lines.push("your colony " + c.id + ": " + c.population + "M of " + c.capacity + "M, " + c.factories + " factories" + (c.command_post ? ", command post" : ", hidden (no command post)"));
      else lines.push(c.owner + "'s colony " + c.id);
    });
    map.units.forEach(function (u) { if (where(u) === h) lines.push(u.id + ": " + u.what + (u.hex ? "" : " (waiting to enter)")); });
    map.sightings.forEach(function (s) { if (s.hex === h) lines.push("seen on turn " + s.turn + ": " + s.text); });
    map.battles.forEach(function (b) { if (b.hex === h) lines.push("battle last turn: " + b.text); });
    if (h === map.entry) lines.push("your entry hex");
    lines.push(inRange[h] ? "within your command range" : "outside your command range (8 hexes from a command post)");
    if (selected) {
      var unit = units[selected];
      lines.push(unit.reach.indexOf(h) >= 0 ? selected + " can end its move here this turn" : selected + " cannot end this turn's move here");
    }
    showDetails(title, lines);
  }

  // ------------------------------------------------------------------ routes

  function askRoute(unitId, to) {
    // A task force formed in these orders goes as its flagship goes, this very turn.
    var asked = units[unitId] && units[unitId].formed ? units[unitId].members[0] : unitId;
    var url = "/reach.json?unit=" + encodeURIComponent(asked) + "&to=" + encodeURIComponent(to);
    return fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (answer) {
      route = { unit: unitId, to: to, answer: answer };
      drawSelection();
      showRoute();
      return answer;
    });
  }
  function routeText(answer) {
    if (answer.problem) return answer.problem;
    var path = (answer.path || []).join(" ") || "stays where it is";
    var plot = answer.plot && answer.plot.length ? "; then, turn by turn: " + answer.plot.join(" ") : "";
    return "this turn by " + path + plot;
  }
  function showRoute() {
    var box = document.getElementById("route");
    if (box && route && route.unit === selected) {
      box.textContent = "Route to " + route.to + ": " + routeText(route.answer);
      box.className = route.answer.problem ? "problems route" : "route";
    }
    if (!editing && route && route.unit === selected) {
      showDetails(selected + " to " + hexName(route.to), [routeText(route.answer)].concat(unitLines(units[selected])));
    }
  }

  // ------------------------------------------------------------------ the orders document

  function moveOf(id, make) {
    doc.moves = doc.moves || [];
    for (var i = 0; i < doc.moves.length; i++) if (doc.moves[i].unit === id) return doc.moves[i];
    if (!make) return null;
    var move = { unit: id, to: null, order: null, count: null, via: [] };
    doc.moves.push(move);
    return move;
  }
  function nameForces(named) {
    // A task force formed here moves under the id the turn gives it; its ships' reach is
    // its flagship's, and it must get there this turn (004 L349-352). Ids move up when an
    // earlier new force is cancelled: its move follows it; a cancelled force's move goes.
    var before = {};
    formed.forEach(function (f) { before[f.members.join()] = f.id; });
    formed.forEach(function (f) { delete units[f.id]; });
    formed = named.map(function (f) {
      var flagship = units[f.units[0]] || {};
      return { id: f.id, kind: "task-force", what: "new task force of " + f.units.length, hex: flagship.hex || null,
        order: flagship.order || "stand-off", count: 1, task_force: null, members: f.units, to: null, horizon: 1,
        plotted: false, reach: flagship.reach || [], problem: null, formed: true };
    });
    formed.forEach(function (f) { units[f.id] = f; });
    var after = {};
    formed.forEach(function (f) { after[f.members.join()] = f.id; });
    var moved = false;
    var renames = [];
    Object.keys(before).forEach(function (key) {
      if (after[key] === before[key]) return;
      var move = moveOf(before[key], false);
      if (!move) return;
      if (after[key]) renames.push([move, after[key]]);
      else doc.moves = doc.moves.filter(function (m) { return m !== move; });
      moved = true;
    });
    renames.forEach(function (r) { r[0].unit = r[1]; });
    if (selected && !units[selected]) selected = null;
    return moved;
  }
  function dropMoves(ids) {
    // Ships that join a task force move with it: the force is ordered, never its ships.
    doc.moves = (doc.moves || []).filter(function (m) { return ids.indexOf(m.unit) < 0; });
  }
  function landingOf(id) {
    doc.landings = doc.landings || [];
    for (var i = 0; i < doc.landings.length; i++) {
      var l = doc.landings[i];
      if (l.unit === id || partOf[l.unit] === id) return l;
    }
    return null;
  }
  function lander(unit) {
    // A part split off this turn lands under its new id (rules.regroup names it).
    var move = moveOf(unit.id, false);
    return move && move.count && parts[unit.id] ? parts[unit.id] : unit.id;
  }
  function fixLandings() {
    var moved = false;
    map.units.forEach(function (unit) {
      var l = landingOf(unit.id);
      if (l && l.unit !== lander(unit)) { l.unit = lander(unit); moved = true; }
    });
    return moved;
  }
  function changed() {
    dirty = true;
    if (ft2Desk) ft2Desk.refresh();
    else { renderUnits(); drawSelection(); }
    var status = document.getElementById("sync");
    if (status) status.textContent = "";
    clearTimeout(changed.timer);
    changed.timer = setTimeout(sync, 250);
  }
  function sync() {
    if (!form) return Promise.resolve();
    var sent = JSON.stringify(doc);
    syncing = post("/orders/text", { document: sent }).then(function (answer) {
      var status = document.getElementById("sync");
      if (answer.text !== undefined && ft2) {
        form.querySelector("textarea").value = answer.text;
        if (JSON.stringify(doc) === sent) dirty = false;
        if (status) { status.textContent = "The orders text below is up to date."; status.className = "hint"; }
      } else if (answer.text !== undefined) {
        parts = {};
        (answer.splits || []).forEach(function (p) { parts[p.unit] = p.new_unit; partOf[p.new_unit] = p.unit; });
        var names = formed.map(function (f) { return f.id + ":" + f.members.join(); }).join();
        if (nameForces(answer.forces || [])) { changed(); renderUnitEditor(); }
        if (names !== formed.map(function (f) { return f.id + ":" + f.members.join(); }).join()) { renderForces(); renderUnits(); }
        form.querySelector("textarea").value = answer.text;
        if (JSON.stringify(doc) === sent) dirty = false;
        if (fixLandings()) { changed(); renderUnitEditor(); }
        if (status) { status.textContent = "The orders text below is up to date."; status.className = "hint"; }
      } else if (status) {
        status.textContent = (answer.problems || []).join("; ");
        status.className = "problems";
      }
      syncing = null;
    });
    return syncing;
  }

  // ------------------------------------------------------------------ the unit list

  var list = document.getElementById("units");
  function allUnits() { return map.units.concat(formed); }
  function renderUnits() {
    if (!list) return;
    clear(list);
    allUnits().forEach(function (unit) {
      var move = moveOf(unit.id, false);
      var given = move && move.to;
      var label = unit.id + " " + (given ? "to " + move.to : unit.plotted ? "plotted" : "holds");
      var button = el("button", { type: "button", "data-unit": unit.id, "class": (unit.id === selected ? "sel " : "") + (given ? "given" : ""), on: { click: function () { select(unit.id); } } },
        el("strong", { text: label }), " ", el("small", { text: unit.what + ", " + (unit.hex ? "at " + unit.hex : "entering at " + map.entry) }));
      list.appendChild(el("li", null, button));
    });
  }
  function select(id) {
    if (!units[id]) return;
    selected = id;
    route = null;
    renderUnits();
    drawSelection();
    showDetails(id, unitLines(units[id]));
    renderUnitEditor();
    var move = moveOf(id, false);
    if (move && move.to) askRoute(id, move.to);
  }

  // ------------------------------------------------------------------ the unit editor

  var ORDERS = ["engage", "stand-off", "ftl-move"];
  function options(select, pairs, value) {
    pairs.forEach(function (p) {
      var o = el("option", { value: p[0], text: p[1] });
      if (String(p[0]) === String(value === null || value === undefined ? "" : value)) o.selected = true;
      select.appendChild(o);
    });
    return select;
  }
  function planetsAt(h) {
    var system = systemAt[h];
    return system && system.explored ? system.planets : [];
  }
  function setDestination(to) {
    var unit = units[selected];
    if (!unit || unit.plotted) return;
    var move = moveOf(selected, true);
    move.to = to || null;
    changed();
    renderUnitEditor();
    if (to) askRoute(selected, to);
    else { route = null; drawSelection(); }
  }
  function renderUnitEditor() {
    var box = document.getElementById("unit-editor");
    if (!box) return;
    clear(box).appendChild(el("h2", { text: selected ? "Orders for " + selected : "Orders for a unit" }));
    if (!selected) { box.appendChild(el("p", { "class": "hint", text: "Choose a unit to give it orders." })); return; }
    var unit = units[selected];
    box.appendChild(el("p", { text: unit.what + (unit.hex ? ", at " + hexName(unit.hex) : ", waiting to enter at " + map.entry) }));
    if (unit.plotted) {
      box.appendChild(el("p", { "class": "hint", text: "Plotted to " + unit.to + " (004 section 6): it follows its plot and cannot be ordered this turn." }));
      return;
    }
    if (unit.problem) box.appendChild(el("p", { "class": "problems", text: unit.problem }));
    var move = moveOf(selected, false) || { to: null, order: null, count: null };
    var dest = el("select", { id: "destination", on: { change: function (e) { setDestination(e.target.value); } } });
    var pairs = [["", "hold position"]];
    unit.reach.forEach(function (h) { if (h !== unit.hex) pairs.push([h, hexName(h) + (h === where(unit) ? " (entry)" : "")]); });
    if (move.to && unit.reach.indexOf(move.to) < 0) pairs.push([move.to, hexName(move.to) + " (further than this turn)"]);
    box.appendChild(el("label", null, "Destination ", options(dest, pairs, move.to)));
    box.appendChild(el("p", { "class": "hint", text: "Or tap a hex on the map" + (unit.horizon > 1 ? " (up to " + unit.horizon + " turns away: it then follows that plot)" : "") + "." }));
    box.appendChild(el("p", { id: "route", "class": "route" }));
    var order = el("select", { id: "order", on: { change: function (e) { moveOf(selected, true).order = e.target.value || null; changed(); } } });
    // Only warships engage: scout troops and transports stand off or move by FTL (004 L112).
    var choices = ORDERS.filter(function (o) { return o !== "engage" || unit.kind === "warship" || unit.kind === "task-force"; });
    box.appendChild(el("label", null, "Combat order ", options(order, [["", "keep " + unit.order]].concat(choices.map(function (o) { return [o, o]; })), move.order)));
    if (unit.kind === "transports" || unit.kind === "scout-troop") {
      var count = el("input", { type: "number", id: "count", min: 1, max: unit.count, value: move.count || "", placeholder: "all", on: { change: function (e) {
        var n = parseInt(e.target.value, 10);
        moveOf(selected, true).count = n > 0 ? n : null;
        changed();
      } } });
      box.appendChild(el("label", null, "Send only ", count, " of " + unit.count + " (the rest stay; the part moves as a new unit" + (move.count && parts[unit.id] ? ", " + parts[unit.id] : "") + ")"));
    }
    if (unit.horizon > 1) {
      var via = el("input", { type: "text", id: "via", size: 14, value: (move.via || []).join(" "), placeholder: "e.g. 0303 0404", on: { change: function (e) {
        moveOf(selected, true).via = e.target.value.split(/[\s,]+/).filter(Boolean);
        changed();
      } } });
      box.appendChild(el("label", null, "Stops on the way ", via, " (each the end of a turn's move, within " + unit.horizon + " turns)"));
    }
    if (unit.kind === "transports" || unit.kind === "scout-troop") renderMerge(box, unit);
    if (unit.kind === "transports") renderLanding(box, unit, move);
    showRoute();
  }
  function renderMerge(box, unit) {
    // Groups of one kind in one hex become the first listed (004 L67): this one takes in
    // the group chosen, which then leaves the orders.
    doc.merges = doc.merges || [];
    var taken = doc.merges.filter(function (m) { return m.units[0] === unit.id; });
    taken.forEach(function (m) {
      box.appendChild(el("p", null, "Takes in " + m.units.slice(1).join(", ") + " ", el("button", { type: "button", text: "cancel", on: { click: function () {
        doc.merges = doc.merges.filter(function (x) { return x !== m; });
        changed();
        renderUnitEditor();
      } } })));
    });
    var others = map.units.filter(function (u) {
      return u.id !== unit.id && u.kind === unit.kind && where(u) === where(unit) && !u.plotted &&
        !doc.merges.some(function (m) { return m.units.indexOf(u.id) >= 0 || m.units.indexOf(unit.id) > 0; });
    });
    if (!others.length) return;
    var pick = options(el("select", { id: "merge" }), [["", "no"]].concat(others.map(function (u) { return [u.id, u.id + " (" + u.what + ")"]; })), "");
    pick.addEventListener("change", function () {
      if (!pick.value) return;
      var into = taken[0];
      if (into) into.units.push(pick.value);
      else doc.merges.push({ units: [unit.id, pick.value] });
      dropMoves([pick.value]);
      changed();
      renderUnitEditor();
    });
    box.appendChild(el("label", null, "Take in the group ", pick));
  }
  function renderLanding(box, unit, move) {
    var at = move.to || where(unit);
    var landing = landingOf(unit.id);
    var planets = planetsAt(at);
    var fieldset = el("fieldset", null, el("legend", { text: "Land colonists where it ends its move (" + hexName(at) + ")" }));
    if (!planets.length) {
      fieldset.appendChild(el("p", { "class": "hint", text: "No planet known there: explore the system first (or move there and land next turn)." }));
      box.appendChild(fieldset);
      return;
    }
    var planet = el("select", { id: "landing-planet", on: { change: function (e) {
      var found = landingOf(unit.id);
      if (!e.target.value) { doc.landings = doc.landings.filter(function (l) { return l !== found; }); }
      else if (found) found.planet = e.target.value;
      else doc.landings.push({ unit: lander(unit), planet: e.target.value, colonists: move.count || unit.count, post: true });
      changed();
      renderUnitEditor();
    } } });
    var pairs = [["", "no landing"]].concat(planets.map(function (p) {
      return [p.id, p.id + ": orbit " + p.orbit + ", " + p.type + ", capacity " + p.capacity + (p.mineral_rich ? ", mineral-rich" : "")];
    }));
    fieldset.appendChild(el("label", null, "Planet ", options(planet, pairs, landing ? landing.planet : "")));
    if (landing) {
      if (landing.unit !== unit.id) fieldset.appendChild(el("p", { "class": "hint", text: "The part sent lands as " + landing.unit + "." }));
      var colonists = el("input", { type: "number", id: "landing-colonists", min: 1, max: move.count || unit.count, value: landing.colonists, on: { change: function (e) {
        landing.colonists = parseInt(e.target.value, 10) || 1;
        changed();
      } } });
      fieldset.appendChild(el("label", null, "Colonists (millions, one a transport) ", colonists));
      var postBox = el("input", { type: "checkbox", id: "landing-post", on: { change: function (e) { landing.post = e.target.checked; changed(); } } });
      postBox.checked = landing.post !== false;
      fieldset.appendChild(el("label", null, postBox, " establish a command post (everyone detects the colony)"));
    }
    box.appendChild(fieldset);
  }

  // ------------------------------------------------------------------ task forces

  function renderForces() {
    var box = document.getElementById("forces");
    if (!box) return;
    clear(box).appendChild(el("h2", { text: "Task forces" }));
    doc.task_forces = doc.task_forces || [];
    map.units.forEach(function (u) {
      if (u.kind !== "task-force") return;
      var disbanding = doc.task_forces.some(function (t) { return t.id === u.id && !(t.units || []).length; });
      var toggle = el("button", { type: "button", "data-force": u.id, on: { click: function () {
        if (disbanding) doc.task_forces = doc.task_forces.filter(function (t) { return t.id !== u.id; });
        else doc.task_forces.push({ id: u.id, units: [] });
        changed();
        renderForces();
      } }, text: disbanding ? "keep it" : "disband" });
      box.appendChild(el("p", null, u.id + " (" + u.members.join(", ") + ") " + (disbanding ? "will be disbanded " : ""), toggle));
      var order = null;
      doc.task_forces.forEach(function (t) { if (t.id === u.id && (t.units || []).length) order = t; });
      // Its ships, and the warships outside any task force in its hex, may make it up.
      var here = u.members.map(function (id) { return [id, "in " + u.id]; });
      map.units.forEach(function (w) {
        if (w.kind === "warship" && !w.task_force && where(w) === where(u)) here.push([w.id, w.what]);
      });
      var ships = el("div", { "class": "reshape", "data-force": u.id });
      here.forEach(function (w) {
        var box2 = el("input", { type: "checkbox", value: w[0] });
        box2.checked = order ? order.units.indexOf(w[0]) >= 0 : u.members.indexOf(w[0]) >= 0;
        ships.appendChild(el("label", null, box2, " " + w[0] + " " + w[1]));
      });
      if (here.length && !disbanding) {
        box.appendChild(el("details", null, el("summary", { text: "change its ships" + (order ? " (changed: " + order.units.join(", ") + ")" : "") }), ships,
          el("button", { type: "button", text: "reshape " + u.id, on: { click: function () {
            var ids = Array.prototype.map.call(ships.querySelectorAll("input:checked"), function (i) { return i.value; });
            doc.task_forces = doc.task_forces.filter(function (t) { return t.id !== u.id; });
            if (ids.length && ids.join() !== u.members.join()) {
              doc.task_forces.push({ id: u.id, units: ids });
              dropMoves(ids);
            }
            changed();
            renderForces();
          } } })));
      }
    });
    doc.task_forces.forEach(function (t, i) {
      if (t.id) return;
      var named = formed.filter(function (f) { return f.members.join() === t.units.join(); })[0];
      box.appendChild(el("p", null, "New task force" + (named ? " " + named.id : "") + ": " + t.units.join(", ") + " ", el("button", { type: "button", text: "cancel", on: { click: function () {
        doc.task_forces.splice(i, 1);
        changed();
        renderForces();
      } } })));
    });
    var free = map.units.filter(function (u) { return u.kind === "warship" && !u.task_force && !u.plotted; });
    if (free.length < 2) return;
    var choose = el("div", { id: "form-force" });
    free.forEach(function (u) {
      choose.appendChild(el("label", null, el("input", { type: "checkbox", value: u.id }), " " + u.id + " " + u.what + " at " + where(u)));
    });
    var forming = el("details", { id: "forming" }, el("summary", { text: "Form a task force" }),
      el("p", { "class": "hint", text: "Warships in one hex (the first ticked is the flagship). It then appears among your units under its new id: give it a destination it reaches this turn." }));
    box.appendChild(forming);
    forming.appendChild(choose);
    forming.appendChild(el("button", { type: "button", id: "form-force-button", text: "Form task force", on: { click: function () {
      var ids = Array.prototype.map.call(choose.querySelectorAll("input:checked"), function (i) { return i.value; });
      if (ids.length < 2) return;
      doc.task_forces.push({ id: null, units: ids });
      dropMoves(ids);
      changed();
      renderForces();
    } } }));
  }

  // ------------------------------------------------------------------ battles and colonies

  var LOCATIONS = ["free-space", "dense-world", "gas-giant", "asteroid-field"];
  function renderStanding() {
    var box = document.getElementById("standing");
    if (!box) return;
    clear(box).appendChild(el("h2", { text: "Battles and colonies" }));
    doc.battle_locations = doc.battle_locations || [];
    var chosen = doc.battle_locations;
    box.appendChild(el("p", { id: "locations", text: "Where you fight when the choice is yours (004 5.3), best first: " + (chosen.join(", ") || "the rules choose") }));
    var rest = LOCATIONS.filter(function (l) { return chosen.indexOf(l) < 0; });
    var add = options(el("select", { id: "add-location" }), [["", "add a location"]].concat(rest.map(function (l) { return [l, l]; })), "");
    add.addEventListener("change", function () {
      if (!add.value) return;
      chosen.push(add.value);
      changed();
      renderStanding();
    });
    box.appendChild(el("p", null, add, " ", el("button", { type: "button", text: "clear", on: { click: function () {
      doc.battle_locations = [];
      changed();
      renderStanding();
    } } })));
    doc.attacks = doc.attacks || [];
    map.colonies.filter(function (c) { return !c.own; }).forEach(function (c) {
      var target = c.id.indexOf("/") >= 0 ? c.id : null;
      var found = doc.attacks.filter(function (a) { return a.system === c.system && (a.colony || null) === target; })[0];
      var pick = options(el("select", { "data-attack": c.id }), [["", "leave it"], ["conquer", "conquer"], ["bombard", "bombard"]], found ? found.mode : "");
      pick.addEventListener("change", function () {
        doc.attacks = doc.attacks.filter(function (a) { return a !== found; });
        if (pick.value) doc.attacks.push({ system: c.system, mode: pick.value, colony: target });
        changed();
        renderStanding();
      });
      box.appendChild(el("label", null, "Attack " + c.owner + "'s colony " + c.id + " (004 5.4): ", pick));
    });
    ["scorch", "posts"].forEach(function (field) {
      doc[field] = doc[field] || [];
      map.colonies.filter(function (c) { return c.own && (field === "scorch" || !c.command_post); }).forEach(function (c) {
        var tick = el("input", { type: "checkbox", "data-field": field, value: c.id });
        tick.checked = doc[field].indexOf(c.id) >= 0;
        tick.addEventListener("change", function () {
          doc[field] = doc[field].filter(function (x) { return x !== c.id; });
          if (tick.checked) doc[field].push(c.id);
          changed();
        });
        var what = field === "scorch" ? "scorch " + c.id + "'s factories if it is assaulted (004 5.4)" : "establish a command post on " + c.id + " (everyone then detects it)";
        box.appendChild(el("label", null, tick, " " + what));
      });
    });
  }

  // ------------------------------------------------------------------ production

  var ITEMS = ["colony_transports", "emigrants", "factories", "robotic_factories", "scout_troops", "pdus", "advanced_pdbs", "planet_shields", "fighters", "decoys", "research"];
  var designs = byId(data.designs || [], "id");
  function spendOf(colony) {
    doc.production = doc.production || [];
    for (var i = 0; i < doc.production.length; i++) if (doc.production[i].colony === colony) return doc.production[i];
    return { colony: colony, ships: [] }; // in the orders once it buys something (`keep`)
  }
  function buys(order) {
    return ITEMS.some(function (k) { return order[k] > 0; }) || (order.ships || []).length > 0;
  }
  function keep(order) {
    // An order that buys nothing is left out, as a file would leave it out.
    doc.production = (doc.production || []).filter(function (o) { return o !== order; });
    if (buys(order)) doc.production.push(order);
  }
  function cost(order) {
    var ip = 0;
    Object.keys(data.prices).forEach(function (k) { ip += (order[k] || 0) * data.prices[k]; });
    var points = 0;
    (order.ships || []).forEach(function (s) { points += (designs[s.design] ? designs[s.design].points : 0) * (s.count || 1); });
    if (order.fighters > 0) points += Math.ceil(order.fighters * data.fighter_group_points / data.fighters_per_group);
    if (order.decoys > 0) points += order.decoys * data.decoy_points;
    return ip + (points > 0 ? Math.ceil(points / data.ft_points_per_ip) : 0) + (order.research || 0);
  }
  function shipPicker(order, after) {
    // A design list, a count and "add", and the ships chosen with "remove".
    var ships = el("div", { "class": "ships" });
    function drawShips() {
      clear(ships);
      (order.ships || []).forEach(function (s, i) {
        var d = designs[s.design];
        ships.appendChild(el("p", null, (s.count || 1) + " x " + s.design + (d ? " (" + d.points + " points each)" : "") + " ", el("button", { type: "button", text: "remove", on: { click: function () {
          order.ships.splice(i, 1);
          drawShips();
          after();
        } } })));
      });
    }
    var design = options(el("select", { "class": "design" }), (data.designs || []).map(function (d) { return [d.id, d.id + ": " + d.hull_class + ", " + d.points + " points (" + Math.ceil(d.points / data.ft_points_per_ip) + " IP alone)"]; }), "");
    var count = el("input", { type: "number", min: 1, value: 1, "class": "ship-count" });
    var add = el("p", null, "Build ", count, " ", design, " ", el("button", { type: "button", "class": "add-ship", text: "add", on: { click: function () {
      order.ships = order.ships || [];
      order.ships.push({ design: design.value, count: Math.max(1, parseInt(count.value, 10) || 1) });
      drawShips();
      after();
    } } }));
    drawShips();
    return [add, ships];
  }
  function renderTreasury(box) {
    var order = doc.treasury || { research: 0, ships: [] };
    function keepTreasury() { doc.treasury = order.research > 0 || order.ships.length ? order : null; }
    var fieldset = el("fieldset", { id: "treasury" }, el("legend", { text: "Starting treasury: " + data.treasury + " IP" }));
    fieldset.appendChild(el("p", { "class": "hint", text: "Spent before anyone moves: research, and ships that enter at your entry hex (004 L32)." }));
    var left = el("p", { "class": "left" });
    function update() {
      var remaining = data.treasury - cost({ research: order.research, ships: order.ships });
      left.textContent = remaining >= 0 ? "Left: " + remaining + " IP" : "Over budget by " + -remaining + " IP";
      left.className = remaining >= 0 ? "left" : "left over";
      renderResearchPool();
    }
    var research = el("input", { type: "number", min: 0, value: order.research || 0, name: "treasury-research", on: { input: function (e) {
      order.research = Math.max(0, parseInt(e.target.value, 10) || 0);
      keepTreasury();
      update();
      changed();
    } } });
    fieldset.appendChild(el("label", null, research, " research (IP to the research pool)"));
    shipPicker(order, function () { keepTreasury(); update(); changed(); }).forEach(function (n) { fieldset.appendChild(n); });
    fieldset.appendChild(left);
    box.appendChild(fieldset);
    update();
  }
  function renderProduction() {
    var box = document.getElementById("production");
    if (!box) return;
    clear(box).appendChild(el("h2", { text: data.production ? "Production (this turn ends with a production phase)" : "Starting treasury" }));
    if (data.treasury > 0) renderTreasury(box);
    if (!data.production && !(data.treasury > 0)) return;
    (data.production ? data.budgets : []).forEach(function (budget) {
      var order = spendOf(budget.colony);
      var fieldset = el("fieldset", { "data-colony": budget.colony }, el("legend", { text: budget.colony + " (" + budget.hex + "): " + budget.ip + " IP" }));
      if (budget.note) fieldset.appendChild(el("p", { "class": "hint", text: budget.note }));
      var left = el("p", { "class": "left" });
      function update() {
        var remaining = budget.ip - cost(order);
        left.textContent = remaining >= 0 ? "Left: " + remaining + " IP (unspent IP are lost)" : "Over budget by " + -remaining + " IP";
        left.className = remaining >= 0 ? "left" : "left over";
        renderResearchPool();
      }
      ITEMS.forEach(function (item) {
        var price = data.prices[item];
        var what = item.replace(/_/g, " ") + (price ? " (" + price + " IP each)" : item === "research" ? " (IP to the research pool)" : item === "fighters" ? " (replacement fighters for carriers and tenders here, " + data.fighter_group_points + " points a " + data.fighters_per_group + ")" : item === "decoys" ? " (decoy drones, one to a warship here without one, " + data.decoy_points + " points each)" : " (millions put in the transports, free)");
        var input = el("input", { type: "number", min: 0, value: order[item] || 0, name: item, on: { input: function (e) {
          order[item] = Math.max(0, parseInt(e.target.value, 10) || 0);
          keep(order);
          update();
          changed();
        } } });
        fieldset.appendChild(el("label", null, input, " " + what));
      });
      shipPicker(order, function () { keep(order); update(); changed(); }).forEach(function (n) { fieldset.appendChild(n); });
      fieldset.appendChild(left);
      box.appendChild(fieldset);
      update();
    });
    var research = el("fieldset", { id: "research" }, el("legend", { text: "Research" }));
    var pool = el("p", { id: "research-pool", "class": "left" });
    var chosen = el("div");
    var tech = options(el("select", { id: "tech" }), (data.techs || []).map(function (t) { return [t.name, t.name + ": " + t.title + " (" + t.price + " IP)"]; }), "");
    research.appendChild(el("p", null, tech, " ", el("button", { type: "button", id: "add-tech", text: "research it", on: { click: function () {
      doc.research = doc.research || [];
      if (!tech.value || doc.research.some(function (r) { return r.tech === tech.value; })) return;
      doc.research.push({ tech: tech.value, ip: null });
      renderProduction();
      changed();
    } } })));
    research.appendChild(chosen);
    research.appendChild(pool);
    (doc.research || []).forEach(function (r, i) {
      chosen.appendChild(el("p", null, "research " + r.tech + " ", el("button", { type: "button", text: "remove", on: { click: function () {
        doc.research.splice(i, 1);
        renderProduction();
        changed();
      } } })));
    });
    box.appendChild(research);
    renderResearchPool();
  }
  function renderResearchPool() {
    var pool = document.getElementById("research-pool");
    if (!pool) return;
    var given = 0, price = 0;
    (doc.production || []).forEach(function (o) { given += o.research || 0; });
    if (doc.treasury) given += doc.treasury.research || 0;
    var prices = byId(data.techs || [], "name");
    (doc.research || []).forEach(function (r) { price += r.ip !== null && r.ip !== undefined ? r.ip : prices[r.tech] ? prices[r.tech].price : 0; });
    pool.textContent = "Research pool: " + given + " IP given; the technologies chosen cost " + price + " IP.";
    pool.className = given >= price ? "left" : "left over";
  }

  // ------------------------------------------------------------------ the deadline

  // Counted down by the server's clock (`data-now`, read against the browser's); the last
  // two minutes by the second. Once it passes, the server refuses orders and the final
  // mark (`campaign.schedule.orders_closed`): the page stops offering them, and says so.
  function deadline() {
    var box = document.getElementById("deadline");
    if (!box || !box.getAttribute("data-deadline")) return;
    var skew = Date.parse(box.getAttribute("data-now")) - Date.now();
    var base = box.textContent.replace(/ \(.*\)$/, "");
    var timer = null;
    function tick() {
      var left = Date.parse(box.getAttribute("data-deadline")) - (Date.now() + skew);
      var text;
      if (left <= 0) {
        clearInterval(timer);
        document.querySelectorAll("#send, form.final button").forEach(function (b) { b.disabled = true; });
        box.textContent = base + " (past the deadline: orders are closed; nothing more can be sent or marked final)";
        return;
      }
      if (left < 120000) text = Math.ceil(left / 1000) + " s left";
      else {
        var minutes = Math.floor(left / 60000), days = Math.floor(minutes / 1440), hours = Math.floor(minutes % 1440 / 60);
        text = (days ? days + " d " : "") + (days || hours ? hours + " h " : "") + minutes % 60 + " min left";
      }
      box.textContent = base + " (" + text + ")";
    }
    timer = setInterval(tick, 1000);
    tick();
  }

  // ------------------------------------------------------------------ the FT2 campaign (issue 20)

  // His fleet counters (001 L1475), each with the hexes a move is accepted to (001 L1477,
  // the server's own check), his splits, merges, docking and drones on the orders phase,
  // and the encounters' decisions (001 L1512-1520) once encounters are found. The orders
  // document is the FT2 orders file's (`campaign.ft2.model.Ft2Orders`).
  function makeFt2Desk() {
    var fleets = byId(data.fleets, "id");
    var ordering = data.phase === "orders" && !data.finished;
    var deciding = data.phase === "encounters" && !data.finished;
    var chosen = null;
    function listOf(key) { doc[key] = doc[key] || []; return doc[key]; }
    function without(key, test) { doc[key] = listOf(key).filter(function (x) { return !test(x); }); }
    function moveFor(id) { return listOf("moves").filter(function (m) { return m.fleet === id; })[0] || null; }
    function place(to) {
      // The orders file takes a hex label or a system's name.
      for (var i = 0; i < map.systems.length; i++) if (map.systems[i].name.toLowerCase() === String(to).toLowerCase()) return map.systems[i].hex;
      return to;
    }
    function facilityLine(h) { var s = systemAt[h]; return s && s.facility ? "naval facility: " + s.facility : null; }
    function shipLine(s) { return s.id + ": " + s.design + " (" + s.hull_class + ", MASS " + s.mass + (s.ftl ? "" : ", no FTL drive") + (s.damaged ? ", damaged" : "") + ")"; }
    function fleetLines(f) {
      var lines = [(f.fixed ? "System Defence (non-FTL)" : "fleet") + " at " + hexName(f.hex) + (f.must_leave ? ": it withdrew and must leave on this move" : "")];
      f.ships.forEach(function (s) { lines.push(shipLine(s)); });
      lines.push(f.drones + " decoy drone(s)");
      var m = moveFor(f.id);
      if (m) lines.push("ordered to " + hexName(place(m.to)));
      if (f.problem) lines.push("cannot move: " + f.problem);
      else if (ordering) lines.push("can reach " + f.reach.length + " hexes this turn (up to " + data.move_hexes + " hexes)");
      if (f.facility) lines.push("at a naval facility: its ships may dock for repairs");
      return lines;
    }
    function hexLines(h) {
      var lines = [];
      var s = systemAt[h];
      if (s) lines.push(s.colour + " star");
      var fac = facilityLine(h);
      if (fac) lines.push(fac);
      data.fleets.forEach(function (f) { if (f.hex === h) lines.push("your " + f.id + ": " + f.ships.length + " ship(s)"); });
      data.encounters.forEach(function (e) { if (e.hex === h) encounterLines(e).forEach(function (l) { lines.push(l); }); });
      if (chosen) {
        var f = fleets[chosen];
        lines.push(f.reach.indexOf(h) >= 0 ? chosen + " can move here this turn" : chosen + " cannot move here this turn");
      }
      showDetails(s ? s.name + " (" + h + ")" : "Hex " + h, lines);
    }
    function encounterLines(e) {
      var lines = ["encounter " + e.id + " at " + e.system + ": " + e.players.join(" against ") + " (" + e.occupant + " holds the inner system)"];
      e.scans.forEach(function (scan) {
        var seen = scan.contacts.map(function (c) { return c.count + " " + c.hull_class; }).join(", ") || "nothing";
        lines.push((scan.scanner === data.player ? "your" : scan.scanner + "'s") + " long-range scan shows " + seen);
      });
      return lines;
    }

    // ------------------------------------------------ the map's overlay

    function draw() {
      if (!overlay) return;
      clear(overlay);
      listOf("moves").forEach(function (m) { var f = fleets[m.fleet]; if (f) courseLine(f.hex, place(m.to), "#ffffff", 1.2, "course"); });
      listOf("splits").forEach(function (sp) { var f = fleets[sp.fleet]; if (f && sp.to) courseLine(f.hex, place(sp.to), "#ffd27f", 1.2, "course"); });
      if (!chosen) return;
      var f = fleets[chosen];
      if (ordering) f.reach.forEach(function (h) { shade(h, "#7fd0ff", "#7fd0ff", "reachable"); });
      shade(f.hex, "#ffe066", "#ffe066", "here");
    }

    // ------------------------------------------------ the fleet list

    function renderList() {
      if (!list) return;
      clear(list);
      data.fleets.forEach(function (f) {
        var m = moveFor(f.id);
        var label = f.id + " " + (m ? "to " + m.to : f.fixed ? "fixed" : "holds");
        list.appendChild(el("li", null, el("button", { type: "button", "data-unit": f.id, "class": (f.id === chosen ? "sel " : "") + (m ? "given" : ""), on: { click: function () { choose(f.id); } } },
          el("strong", { text: label }), " ", el("small", { text: f.ships.length + " ship(s), " + f.drones + " drone(s), at " + hexName(f.hex) }))));
      });
    }
    function choose(id) {
      if (!fleets[id]) return;
      chosen = id;
      renderList();
      draw();
      showDetails(id, fleetLines(fleets[id]));
      renderEditor();
    }
    function setMove(id, to) {
      without("moves", function (m) { return m.fleet === id; });
      if (to && place(to) !== fleets[id].hex) doc.moves.push({ fleet: id, to: to });
      changed();
      renderEditor();
    }

    // ------------------------------------------------ the fleet editor

    function reachPairs(f, first) {
      return [["", first]].concat(f.reach.map(function (h) { return [h, hexName(h)]; }));
    }
    function renderEditor() {
      var box = document.getElementById("unit-editor");
      if (!box) return;
      clear(box).appendChild(el("h2", { text: chosen ? "Orders for " + chosen : "Orders for a fleet" }));
      if (!chosen) { box.appendChild(el("p", { "class": "hint", text: "Choose a fleet to give it orders." })); return; }
      var f = fleets[chosen];
      box.appendChild(el("p", { text: f.ships.length + " ship(s) and " + f.drones + " drone(s) at " + hexName(f.hex) }));
      if (!ordering) { box.appendChild(el("p", { "class": "hint", text: deciding ? "Fleets move again next turn: now the encounters wait for your decisions." : "No orders are taken now." })); return; }
      if (f.problem) { box.appendChild(el("p", { "class": "problems", text: f.problem })); }
      else {
        var m = moveFor(f.id);
        var pairs = reachPairs(f, f.must_leave ? "choose where it goes (it must leave)" : "stay where it is");
        if (m && f.reach.indexOf(m.to) < 0) pairs.push([m.to, m.to + " (as written)"]);
        var dest = options(el("select", { id: "destination", on: { change: function (e) { setMove(f.id, e.target.value); } } }), pairs, m ? m.to : "");
        box.appendChild(el("label", null, "Move to ", dest));
        var typed = el("input", { type: "text", id: "destination-text", size: 12, placeholder: "0909 or Lafayette", value: m ? m.to : "" });
        box.appendChild(el("p", null, el("label", null, "or a hex or system ", typed), " ", el("button", { type: "button", id: "destination-set", text: "set", on: { click: function () { setMove(f.id, typed.value.trim()); } } })));
        box.appendChild(el("p", { "class": "hint", text: "Or tap a hex on the map: a fleet moves up to " + data.move_hexes + " hexes a turn (001 L1477)." }));
      }
      if (!f.fixed) renderSplit(box, f);
      if (!f.fixed) renderMerge(box, f);
      if (f.facility) renderDocks(box, f);
      if (f.drones > 0) renderDecoys(box, f);
    }
    function renderSplit(box, f) {
      listOf("splits").forEach(function (sp) {
        if (sp.fleet !== f.id) return;
        box.appendChild(el("p", null, "Splits off " + sp.ships.join(", ") + (sp.drones ? " with " + sp.drones + " drone(s)" : "") + (sp.to ? ", to " + sp.to : "") + " ", el("button", { type: "button", text: "cancel", on: { click: function () {
          without("splits", function (x) { return x === sp; });
          changed();
          renderEditor();
        } } })));
      });
      if (f.ships.length < 2) return;
      var fieldset = el("fieldset", { id: "split" }, el("legend", { text: "Split ships off as a new fleet" }));
      f.ships.forEach(function (s) { fieldset.appendChild(el("label", null, el("input", { type: "checkbox", "data-split-ship": s.id, value: s.id }), " " + shipLine(s))); });
      var drones = el("input", { type: "number", id: "split-drones", min: 0, max: f.drones, value: 0 });
      if (f.drones > 0) fieldset.appendChild(el("label", null, "drones it takes ", drones));
      var to = options(el("select", { id: "split-to" }), reachPairs(f, "it stays here"), "");
      fieldset.appendChild(el("label", null, "it moves to ", to));
      fieldset.appendChild(el("button", { type: "button", id: "split-button", text: "split off", on: { click: function () {
        var ships = Array.prototype.map.call(fieldset.querySelectorAll("input[data-split-ship]:checked"), function (i) { return i.value; });
        if (!ships.length) return;
        var order = { fleet: f.id, ships: ships, drones: Math.max(0, parseInt(drones.value, 10) || 0) };
        if (to.value) order.to = to.value;
        listOf("splits").push(order);
        changed();
        renderEditor();
      } } }));
      box.appendChild(fieldset);
    }
    function renderMerge(box, f) {
      listOf("merges").forEach(function (mg) {
        if (mg.into !== f.id) return;
        box.appendChild(el("p", null, "Takes in " + mg.fleets.join(", ") + " ", el("button", { type: "button", text: "cancel", on: { click: function () {
          without("merges", function (x) { return x === mg; });
          changed();
          renderEditor();
        } } })));
      });
      var others = data.fleets.filter(function (o) {
        return o.id !== f.id && o.hex === f.hex && !o.fixed && !doc.merges.some(function (mg) { return mg.fleets.indexOf(o.id) >= 0 || mg.into === o.id; });
      });
      if (!others.length) return;
      var pick = options(el("select", { id: "merge" }), [["", "no"]].concat(others.map(function (o) { return [o.id, o.id + " (" + o.ships.length + " ship(s))"]; })), "");
      pick.addEventListener("change", function () {
        if (!pick.value) return;
        var into = doc.merges.filter(function (mg) { return mg.into === f.id; })[0];
        if (into) into.fleets.push(pick.value);
        else doc.merges.push({ into: f.id, fleets: [pick.value] });
        without("moves", function (m) { return m.fleet === pick.value; });
        changed();
        renderEditor();
      });
      box.appendChild(el("label", null, "Merge in the fleet ", pick));
    }
    function renderDocks(box, f) {
      var fieldset = el("fieldset", { id: "docks" }, el("legend", { text: "Dock at the facility (repairs; a docked ship cannot fight, 001 L1530-1532)" }));
      f.ships.forEach(function (s) {
        var found = listOf("docks").filter(function (d) { return d.ship === s.id; })[0];
        var tick = el("input", { type: "checkbox", "data-dock": s.id });
        tick.checked = !!found;
        var systems = el("input", { type: "text", "data-dock-systems": s.id, size: 16, placeholder: "systems to roll for", value: found ? found.systems.join(" ") : "" });
        function update() {
          without("docks", function (d) { return d.ship === s.id; });
          if (tick.checked) doc.docks.push({ ship: s.id, systems: systems.value.split(/[\s,]+/).filter(Boolean) });
          changed();
        }
        tick.addEventListener("change", update);
        systems.addEventListener("change", function () { if (tick.checked) update(); });
        fieldset.appendChild(el("label", null, tick, " " + s.id + " " + s.design + (s.damaged ? " (damaged)" : "") + " ", systems));
      });
      fieldset.appendChild(el("p", { "class": "hint", text: "Up to three damaged systems a week, each repaired on 3+; a fleet that docks does not move." }));
      box.appendChild(fieldset);
    }
    function renderDecoys(box, f) {
      var found = listOf("decoys").filter(function (d) { return d.fleet === f.id; })[0];
      var count = el("input", { type: "number", id: "decoys", min: 0, max: Math.min(f.drones, f.ships.length), value: found ? found.drones : 0, on: { change: function (e) {
        var n = Math.max(0, parseInt(e.target.value, 10) || 0);
        without("decoys", function (d) { return d.fleet === f.id; });
        if (n > 0) doc.decoys.push({ fleet: f.id, drones: n });
        changed();
      } } });
      box.appendChild(el("label", null, "Release ", count, " decoy drone(s) as it comes out of FTL (one a real ship at most; they fool a long-range scan, 001 L1499)"));
    }

    // ------------------------------------------------ encounters and battles

    var DECISIONS = ["fight", "withdraw", "stand-off"];
    function renderEncounters() {
      var box = document.getElementById("encounters");
      if (!box) return;
      clear(box).appendChild(el("h2", { text: "Encounters" }));
      if (!data.encounters.length) box.appendChild(el("p", { "class": "hint", text: "No encounter awaits your decision." }));
      data.encounters.forEach(function (e) {
        var part = el("div", { "data-encounter": e.id });
        part.appendChild(el("h3", { text: e.id + " at " + e.system + " (" + e.hex + ")" }));
        var lines = el("ul");
        encounterLines(e).slice(1).forEach(function (l) { lines.appendChild(el("li", { text: l })); });
        part.appendChild(lines);
        var given = listOf("decisions").filter(function (d) { return d.encounter === e.id; })[0];
        if (deciding) {
          var pick = options(el("select", { "data-decision": e.id }), [["", "not decided (stand-off)"]].concat(DECISIONS.map(function (d) { return [d, d]; })), given ? given.decision : "");
          pick.addEventListener("change", function () {
            without("decisions", function (d) { return d.encounter === e.id; });
            if (pick.value) doc.decisions.push({ encounter: e.id, decision: pick.value });
            changed();
          });
          part.appendChild(el("label", null, "Your decision (secret until both are revealed, 001 L1512) ", pick));
        } else {
          part.appendChild(el("p", { text: "Your decision: " + (e.decision || "none") }));
        }
        box.appendChild(part);
      });
      if (data.battles.length) {
        var fought = el("p", null, "Your battles: ");
        data.battles.forEach(function (b) { fought.appendChild(el("a", { href: "/battles/" + encodeURIComponent(b), text: b })); fought.appendChild(document.createTextNode(" ")); });
        box.appendChild(fought);
      }
    }

    // ------------------------------------------------ the map's events

    function markerOf(target) {
      // A fleet's counter is keyed by its id; a scan's contacts by "scan" and the encounter.
      var marker = target.closest && target.closest(".marker");
      var key = marker ? marker.getAttribute("data-key") || "" : "";
      if (key.indexOf("scan ") === 0) {
        var met = data.encounters.filter(function (x) { return x.id === key.slice(5); })[0];
        return met ? { hex: met.hex } : "";
      }
      return key;
    }
    if (svg) {
      svg.addEventListener("mouseover", function (e) {
        var key = markerOf(e.target);
        if (fleets[key]) { showDetails(key, fleetLines(fleets[key])); return; }
        var found = key.hex ? key : hexFrom(e.target);
        if (found && found.hex) hexLines(found.hex);
      });
      svg.addEventListener("click", function (e) {
        var key = markerOf(e.target);
        if (fleets[key] && key !== chosen) { choose(key); return; }
        var found = key.hex ? key : hexFrom(e.target);
        var h = fleets[key] ? fleets[key].hex : found && found.hex;
        if (!h) return;
        var f = chosen ? fleets[chosen] : null;
        if (f && ordering && !f.problem && (f.reach.indexOf(h) >= 0 || h === f.hex)) setMove(f.id, h === f.hex ? "" : h);
        else hexLines(h);
      });
    }
    return {
      render: function () { renderList(); draw(); renderEncounters(); renderEditor(); },
      refresh: function () { renderList(); draw(); }
    };
  }

  // ------------------------------------------------------------------ wiring

  var ft2Desk = ft2 ? makeFt2Desk() : null;
  if (svg && !ft2) {
    svg.addEventListener("mouseover", function (e) {
      var found = hexFrom(e.target);
      if (!found) return;
      if (found.unit && units[found.unit]) showDetails(found.unit, unitLines(units[found.unit]));
      else if (found.hex) hexDetails(found.hex);
    });
    svg.addEventListener("click", function (e) {
      var found = hexFrom(e.target);
      if (!found) return;
      if (found.unit && units[found.unit] && found.unit !== selected) { select(found.unit); return; }
      var h = found.hex || (found.unit && units[found.unit] ? where(units[found.unit]) : null);
      if (!h) return;
      if (selected && editing && !units[selected].plotted) setDestination(h === units[selected].hex ? "" : h);
      else if (selected) askRoute(selected, h);
      else hexDetails(h);
    });
  }
  if (form) {
    form.addEventListener("submit", function (e) {
      if (!dirty && !syncing) return;
      e.preventDefault();
      (syncing || sync()).then(function () { return dirty ? sync() : null; }).then(function () { form.submit(); });
    });
    var fromText = document.getElementById("from-text");
    if (fromText && editing) {
      fromText.hidden = false;
      fromText.addEventListener("click", readText);
      // Orders sent back with problems: the editor takes up the text that was sent.
      if (document.querySelector("div.problems[role=alert]")) readText(true);
    }
  }
  function readText(quiet) {
    post("/orders/read", { orders: form.querySelector("textarea").value }).then(function (answer) {
      var status = document.getElementById("sync");
      if (answer.document) {
        doc = answer.document;
        dirty = false;
        renderAll();
        if (status) { status.textContent = "The editor now holds the orders text."; status.className = "hint"; }
      } else if (status && quiet !== true) {
        status.textContent = (answer.problems || []).join("; ");
        status.className = "problems";
      }
    });
  }
  function renderAll() {
    if (ft2Desk) { ft2Desk.render(); return; }
    renderUnits();
    drawSelection();
    renderForces();
    renderStanding();
    renderProduction();
    if (selected) select(selected);
  }
  renderAll();
  deadline();
  document.body.setAttribute("data-ready", "yes");
})();
