// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph page: the stacks become a tree (outermost caller at the
 * bottom), written as data into one HTML file whose inline script draws it
 * as SVG and answers search (frames whose name holds the text turn
 * magenta; the share they cover is shown; "#q=text" at the end of the
 * page's address searches at once), click to zoom into a frame,
 * and tooltips with the weight, its share and the other figure.  No
 * external resource: the page opens offline.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "base/base.h"

struct fnode {
	uint32_t name;
	uint32_t depth;
	double x0, w, o;
	double child_end;
};

struct tree {
	struct fnode *nodes;
	size_t nr, cap;
	char **names;
	uint32_t nr_names, cap_names;
	uint32_t *name_hash, hcap;
	size_t *path;		/* node index per depth of the previous stack */
	size_t path_len, path_cap;
	uint32_t max_depth;
	double root_end;
};

static uint64_t hash_mem(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int64_t name_index(struct tree *t, const char *s, size_t n)
{
	uint32_t j;

	if ((t->nr_names + 1) * 2 > t->hcap) {
		uint32_t cap = t->hcap ? t->hcap * 2 : 1024, i;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -1;
		for (i = 0; i < t->nr_names; i++) {
			for (j = hash_mem(t->names[i], strlen(t->names[i])) & (cap - 1); h[j];
			     j = (j + 1) & (cap - 1))
				;
			h[j] = i + 1;
		}
		free(t->name_hash);
		t->name_hash = h;
		t->hcap = cap;
	}
	for (j = hash_mem(s, n) & (t->hcap - 1); t->name_hash[j]; j = (j + 1) & (t->hcap - 1)) {
		const char *c = t->names[t->name_hash[j] - 1];

		if (!strncmp(c, s, n) && !c[n])
			return t->name_hash[j] - 1;
	}
	if (t->nr_names == t->cap_names) {
		uint32_t cap = t->cap_names ? t->cap_names * 2 : 256;
		char **p = realloc(t->names, cap * sizeof(*p));

		if (!p)
			return -1;
		t->names = p;
		t->cap_names = cap;
	}
	t->names[t->nr_names] = strndup(s, n);
	if (!t->names[t->nr_names])
		return -1;
	t->name_hash[j] = ++t->nr_names;
	return t->nr_names - 1;
}

static int new_node(struct tree *t, uint32_t depth, int64_t name)
{
	struct fnode *n;

	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;

		n = realloc(t->nodes, cap * sizeof(*n));
		if (!n)
			return -1;
		t->nodes = n;
		t->cap = cap;
	}
	if (depth >= t->path_cap) {
		size_t cap = t->path_cap ? t->path_cap * 2 : 64;
		size_t *p = realloc(t->path, cap * sizeof(*p));

		if (!p)
			return -1;
		t->path = p;
		t->path_cap = cap;
	}
	n = &t->nodes[t->nr];
	n->name = (uint32_t)name;
	n->depth = depth;
	n->x0 = depth ? t->nodes[t->path[depth - 1]].child_end : t->root_end;
	n->child_end = n->x0;
	n->w = n->o = 0;
	t->path[depth] = t->nr++;
	t->path_len = depth + 1;
	if (depth > t->max_depth)
		t->max_depth = depth;
	return 0;
}

/* Stacks arrive in frame order, so a stack shares a prefix with the one before. */
static int add_to_tree(struct tree *t, const struct flame_stack *s)
{
	const char *p = s->frames, *e;
	uint32_t depth = 0, d;
	bool same = true;
	int64_t name;

	for (;; depth++) {
		e = strchr(p, ';');
		if (!e)
			e = p + strlen(p);
		name = name_index(t, p, (size_t)(e - p));
		if (name < 0)
			return -1;
		if (!(same && depth < t->path_len && t->nodes[t->path[depth]].name == name)) {
			same = false;
			if (new_node(t, depth, name))
				return -1;
		}
		if (!*e)
			break;
		p = e + 1;
	}
	t->path_len = depth + 1;
	/* children sit at the start of their parent, its own time after them */
	for (d = 0; d <= depth; d++) {
		struct fnode *n = &t->nodes[t->path[d]];

		n->w += s->weight;
		n->o += s->other;
		if (d < depth)
			n->child_end += s->weight;
	}
	t->root_end += s->weight;
	return 0;
}

static void tree_free(struct tree *t)
{
	uint32_t i;

	for (i = 0; i < t->nr_names; i++)
		free(t->names[i]);
	free(t->names);
	free(t->name_hash);
	free(t->nodes);
	free(t->path);
}

/* A JSON string safe inside <script>: '<', '>' and '&' escaped too. */
static void js_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static const char page_head[] =
"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
"style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
"<style>body{font-family:sans-serif;margin:16px;color:#222}"
"#bar{margin:8px 0}#bar input{width:24em}#flame{width:100%;display:block;background:#fafafa}"
"#flame text{font:12px monospace;pointer-events:none}#flame g{cursor:pointer}"
"#flame g:hover rect{stroke:#000;stroke-width:.5}"
"#tip{position:fixed;display:none;background:#fffbe8;border:1px solid #999;padding:4px 8px;"
"font-size:12px;max-width:60em;word-break:break-all;pointer-events:none}</style>\n";

static const char page_script[] =
"(function(){\n"
"const D=JSON.parse(document.getElementById('flame-data').textContent);\n"
"const K=5,N=D.nodes,n=N.length/K,RH=18,svg=document.getElementById('flame');\n"
"const tip=document.getElementById('tip'),info=document.getElementById('info');\n"
"let maxd=0,zoom=-1,term='';\n"
"for(let i=0;i<n;i++)maxd=Math.max(maxd,N[i*K+1]);\n"
"function esc(s){return s.replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/>/g,'&gt;');}\n"
"function num(v,i){return i?Math.round(v).toLocaleString('en'):(+v.toPrecision(4)).toString();}\n"
"function colour(s){let h=0;for(let i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))|0;"
"return 'rgb('+(205+(h&50))+','+(90+((h>>>8)%120))+','+((h>>>16)%60)+')';}\n"
"function hit(i){return term!==''&&D.names[N[i*K]].toLowerCase().indexOf(term)>=0;}\n"
"function render(){\n"
" const width=svg.clientWidth||1200;\n"
" const z0=zoom<0?0:N[zoom*K+2],zw=zoom<0?D.total:N[zoom*K+3],zd=zoom<0?0:N[zoom*K+1];\n"
" svg.setAttribute('height',(maxd+1)*RH+2);\n"
" let h='';\n"
" for(let i=0;i<n;i++){\n"
"  const d=N[i*K+1],x0=N[i*K+2],w=N[i*K+3];let x,px;\n"
"  if(zw<=0)break;\n"
"  if(d<zd){if(x0<=z0+zw*1e-9&&x0+w>=z0+zw*(1-1e-9)){x=0;px=width;}else continue;}\n"
"  else{if(x0+w<=z0+zw*1e-12||x0>=z0+zw*(1-1e-12))continue;x=(x0-z0)/zw*width;px=w/zw*width;}\n"
"  if(px<0.4)continue;\n"
"  const y=(maxd-d)*RH,name=D.names[N[i*K]],m=hit(i);\n"
"  h+='<g data-i=\"'+i+'\" class=\"frame'+(m?' match':'')+'\"><rect x=\"'+x.toFixed(1)+'\" y=\"'+y+'\" width=\"'+Math.max(px-0.5,0.4).toFixed(1)+'\" height=\"'+(RH-1)+'\" fill=\"'+(m?'#d23be0':colour(name))+'\"/>';\n"
"  if(px>28){const c=Math.floor((px-6)/7);h+='<text x=\"'+(x+3).toFixed(1)+'\" y=\"'+(y+13)+'\">'+esc(name.length>c?name.slice(0,Math.max(c-2,0))+'..':name)+'</text>';}\n"
"  h+='</g>';\n"
" }\n"
" svg.innerHTML=h;\n"
" let s='total '+num(D.total,D.wi)+' '+D.wname;\n"
" if(zoom>=0)s+=' | zoomed to '+D.names[N[zoom*K]]+' ('+(100*N[zoom*K+3]/D.total).toFixed(2)+'%)';\n"
" if(term!==''){const r=[];for(let i=0;i<n;i++)if(hit(i))r.push([N[i*K+2],N[i*K+2]+N[i*K+3]]);\n"
"  r.sort((a,b)=>a[0]-b[0]);let sum=0,e=-Infinity;\n"
"  for(const [a,b] of r){if(b<=e)continue;sum+=b-Math.max(a,e);e=b;}\n"
"  s+=' | matched '+num(sum,D.wi)+' '+D.wname+' ('+(D.total?100*sum/D.total:0).toFixed(2)+'%)';}\n"
" info.textContent=s;\n"
"}\n"
"function node(ev){const g=ev.target.closest('g.frame');return g?+g.getAttribute('data-i'):-1;}\n"
"svg.addEventListener('click',ev=>{const i=node(ev);if(i>=0){zoom=i;render();}});\n"
"svg.addEventListener('mousemove',ev=>{const i=node(ev);if(i<0){tip.style.display='none';return;}\n"
" const w=N[i*K+3],o=N[i*K+4];\n"
" let t=esc(D.names[N[i*K]])+'<br>'+num(w,D.wi)+' '+esc(D.wname)+' ('+(D.total?100*w/D.total:0).toFixed(2)+'% of all';\n"
" if(zoom>=0)t+=', '+(100*w/N[zoom*K+3]).toFixed(2)+'% of the zoomed frame';\n"
" t+=')';if(D.oname)t+='<br>'+num(o,D.oi)+' '+esc(D.oname)+(D.ototal?' ('+(100*o/D.ototal).toFixed(2)+'%)':'');\n"
" tip.innerHTML=t;tip.style.display='block';\n"
" tip.style.left=Math.min(ev.clientX+12,window.innerWidth-300)+'px';tip.style.top=(ev.clientY+14)+'px';});\n"
"svg.addEventListener('mouseleave',()=>{tip.style.display='none';});\n"
"document.getElementById('reset').addEventListener('click',()=>{zoom=-1;render();});\n"
"document.getElementById('search').addEventListener('input',ev=>{term=ev.target.value.toLowerCase();render();});\n"
"window.addEventListener('resize',render);\n"
"if(location.hash.indexOf('#q=')===0){term=decodeURIComponent(location.hash.slice(3)).toLowerCase();"
"document.getElementById('search').value=term;}\n"
"render();\n"
"})();\n";

static void write_data(const struct flame *f, const struct tree *t, FILE *out)
{
	size_t i;

	fputs("<script type=\"application/json\" id=\"flame-data\">{\"wname\":", out);
	js_string(out, f->weight_unit[0] ? f->weight_unit : f->weight_name);
	fputs(",\"oname\":", out);
	js_string(out, f->other_unit[0] ? f->other_unit : f->other_name);
	fprintf(out, ",\"wi\":%s,\"oi\":%s,\"total\":%.17g,\"ototal\":%.17g,\"names\":[",
		f->weight_integer ? "true" : "false", f->other_integer ? "true" : "false",
		f->total, f->total_other);
	for (i = 0; i < t->nr_names; i++) {
		if (i)
			fputc(',', out);
		js_string(out, t->names[i]);
	}
	fputs("],\n\"nodes\":[", out);
	for (i = 0; i < t->nr; i++)
		fprintf(out, "%s%u,%u,%.17g,%.17g,%.17g", i ? ",\n" : "", t->nodes[i].name,
			t->nodes[i].depth, t->nodes[i].x0, t->nodes[i].w, t->nodes[i].o);
	fputs("]}</script>\n", out);
}

int flame_write_html(const struct flame *f, const char *title, FILE *out)
{
	struct tree t;
	size_t i;
	int ret = 0;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < f->nr && !ret; i++)
		if (f->stacks[i].weight > 0)
			ret = add_to_tree(&t, &f->stacks[i]);
	if (ret) {
		tree_free(&t);
		errno = ENOMEM;
		return -1;
	}
	fputs(page_head, out);
	fputs("<title>", out);
	html_text(out, title);
	fputs("</title></head><body>\n<h2>", out);
	html_text(out, title);
	fputs("</h2>\n<div id=\"bar\"><input id=\"search\" type=\"search\" placeholder=\"search frames\"> "
	      "<button id=\"reset\">reset zoom</button> <span id=\"info\"></span></div>\n"
	      "<noscript>This flame graph is drawn by the page's script.</noscript>\n"
	      "<svg id=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" height=\"20\"></svg>\n"
	      "<div id=\"tip\"></div>\n", out);
	write_data(f, &t, out);
	fputs("<script>\n", out);
	fputs(page_script, out);
	fputs("</script>\n</body></html>\n", out);
	tree_free(&t);
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
