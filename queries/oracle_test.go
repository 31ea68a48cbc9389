package queries
import ("testing";"os";"path/filepath";"regexp";"strings";"fmt";"sort";"github.com/otelgov/otelcol-governance/queryfile")
func TestOracle(t *testing.T){
 n:=names(t)
 files,_:=filepath.Glob("testdata/realworld/*")
 tok:=regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.:]*`)
 out:=map[string]int{}
 for _,f:=range files{
  if strings.Contains(f,"LICENSE")||strings.Contains(f,"MANIFEST"){continue}
  b,_:=os.ReadFile(f)
  x:=queryfile.Extract(f,b)
  for _,q:=range x.Queries{
   for _,w:=range tok.FindAllString(q.Text,-1){
     hit:=""
     if _,_,ok:=n.SeriesRename(w);ok{hit="metric"}
     if n.deprecated[w]||len(n.promAttrs[w])>0 {hit="label"}
     if n.Attribute(w)!=nil {hit="key"}
     if hit!=""{ out[fmt.Sprintf("%s:%d: %s %s %s", filepath.Base(f), x.Line(q.Off), q.Kind, hit, w)]++ }
   }
  }
 }
 var ks []string; for k:=range out{ks=append(ks,k)}; sort.Strings(ks)
 os.WriteFile("/tmp/oracle.txt",[]byte(strings.Join(ks,"\n")+"\n"),0o644)
}
