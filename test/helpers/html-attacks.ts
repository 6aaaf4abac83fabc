// Classic HTML sanitizer attacks, each with what the dev console shows for it; the unit and the browser tests of src/dev/web/render.ts share them.

/** What every script in the attacks does: test/integration/dev-console-render-browser.test.ts looks for it. */
const x = "window.__xss=1";

/** [what the attack is, the message HTML, what the console shows for it]. */
export const HTML_ATTACKS: [name: string, attack: string, shown: string][] = [
  ["img onerror", `<img src=x onerror=${x}>`, "<img />"],
  ["upper-case javascript: src", `<IMG SRC="JaVaScRiPt:${x}">`, "<img />"],
  ["slashes for spaces", `<img/src=x/onerror=${x}>`, "<img />"],
  ["a tab as a character reference", `<a href="jav&#x09;ascript:${x}">t</a>`, "<a>t</a>"],
  ["a named tab", `<a href="jav&Tab;ascript:${x}">t</a>`, "<a>t</a>"],
  ["&colon;", `<a href="javascript&colon;${x}">t</a>`, "<a>t</a>"],
  ["a reference without its semicolon", `<a href="javascript&#58${x}">t</a>`, "<a>t</a>"],
  ["a leading control character", `<a href="&#0001; &#x6A;avascript:${x}">t</a>`, "<a>t</a>"],
  ["vbscript:", `<A HREF="VBScript:msgbox(1)">t</A>`, "<a>t</a>"],
  ["data: HTML link", `<a href="data:text/html,<script>${x}</script>">t</a>`, "<a>t</a>"],
  ["data: HTML link, base64", '<a href="data:text/html;base64,PHNjcmlwdD4=">t</a>', "<a>t</a>"],
  ["data: SVG image", '<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">', "<img />"],
  [
    "protocol-relative links",
    '<a href="//evil.test/x">t</a><a href="\\\\evil.test">u</a><a href=" /\\evil.test">v</a>',
    "<a>t</a><a>u</a><a>v</a>",
  ],
  ["<svg><script>", `<svg><script>${x}</script></svg>after`, "after"],
  [
    "SVG animating a link to javascript:",
    `<svg onload=${x}><animate attributeName="href" values="javascript:${x}"/><a><text>x</text></a></svg>after`,
    "after",
  ],
  [
    "MathML namespace confusion",
    `<math><mtext><table><mglyph><style><img src=x onerror=${x}></style></mglyph></table></mtext></math>after`,
    "after",
  ],
  [
    "a title that closes <noscript>",
    `<noscript><p title="</noscript><img src=x onerror=${x}>"></noscript>after`,
    "after",
  ],
  // sanitize-html 2.17.6 fixed raw text inside foreign content; the console drops SVG and MathML whole.
  [
    "a textarea inside SVG",
    `<svg><textarea><img src=x onerror=${x}></textarea></svg>after`,
    "after",
  ],
  [
    "xmp inside MathML",
    `<math><mtext><xmp></mtext><img src=x onerror=${x}></xmp></mtext></math>after`,
    "after",
  ],
  [
    "a style inside SVG inside a paragraph",
    `<p><svg><style></p><img src=x onerror=${x}></style></svg>after`,
    "<p>after</p>",
  ],
  ["<xmp> raw text", `<xmp><img src=x onerror=${x}></xmp>after`, "after"],
  [
    "a script inside its own name",
    `<scr<script>ipt>${x}</scr</script>ipt>`,
    "ipt&gt;window.__xss=1ipt&gt;",
  ],
  ["<!--> ends a comment at once", `<!--><img src=x onerror=${x}>-->`, "<img />--&gt;"],
  ["--!> ends a comment", `<!-- --!><img src=x onerror=${x}>-->`, ""],
  ["unclosed tags", "<p><b><i>unclosed", "<p><b><i>unclosed</i></b></p>"],
  ["misnested tags", "<b><p>x</b></p>y", "<b><p>x</p></b><p></p>y"],
  [
    "a table left open in a table",
    `<table><tr><td>a<table><img src=x onerror=${x}>`,
    "<table><tr><td>a<table><img /></table></td></tr></table>",
  ],
  [
    "a quote inside a single-quoted value",
    `<a title='x" onmouseover="${x}'>t</a>`,
    '<a title="x&quot; onmouseover=&quot;window.__xss=1">t</a>',
  ],
  [
    "encoded quotes",
    `<span title="a&quot; onclick=&quot;${x}">t</span>`,
    '<span title="a&quot; onclick=&quot;window.__xss=1">t</span>',
  ],
  [
    "a backtick-quoted value",
    `<img alt=\`x\`onerror=${x} src="/user_uploads/1/a.png">`,
    '<img alt="`x`onerror=window.__xss=1" src="/user_uploads/1/a.png" />',
  ],
  ["a quoted attribute name", `<span "onclick=${x}">t</span>`, "<span>t</span>"],
  ["a handler after a slash", `<p/onclick=${x}>t</p>`, "<p>t</p>"],
  ["a style with a URL", `<div style="background:url(javascript:${x})">t</div>`, "<div>t</div>"],
  [
    "an event on an allowed tag",
    `<details open ontoggle=${x}><summary>s</summary>d</details>`,
    "<details><summary>s</summary>d</details>",
  ],
  [
    "page-wide tags",
    '<base href="https://evil.test/"><meta http-equiv="refresh" content="0;url=https://evil.test"><link rel=stylesheet href=https://evil.test/x.css>t',
    "t",
  ],
  [
    "forms",
    `<form action="javascript:${x}"><button formaction="javascript:${x}">b</button><input autofocus onfocus=${x}></form>`,
    "b",
  ],
  [
    "embedded documents",
    `<iframe srcdoc="<script>${x}</script>"></iframe><object data="javascript:${x}"></object><embed src="javascript:${x}">after`,
    "after",
  ],
  [
    "the opener of a link",
    '<a href="https://ok.test" target="_self" rel="opener">t</a><a rel="opener" href="/#narrow">u</a>',
    '<a href="https://ok.test" target="_blank" rel="noopener noreferrer">t</a><a href="/#narrow">u</a>',
  ],
  [
    "an emoji span holding markup",
    `<span class="emoji emoji-1f44d" title="thumbs up">:thumbs_up:<img src=x onerror=${x}></span>`,
    '<span class="emoji emoji-1f44d" title="thumbs up">👍<img /></span>',
  ],
  [
    "a <time> with a handler",
    `<time datetime="2024-05-01T08:00:00Z" onmouseover="${x}">t</time>`,
    '<time datetime="2024-05-01T08:00:00Z">t</time>',
  ],
  // Last: what follows it is lost, as htmlparser2 reads the rest as the textarea's text.
  ["a </textarea/> end tag", `<textarea></textarea/><img src=x onerror=${x}>after`, ""],
];
