package io.zoolander.server.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.ProjectRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * {@code zoolander-bom} manages exactly the modules that are published (every jar module whose POM
 * does not skip deployment), at the build's version, and nothing from outside the project.
 */
class BomTest {
  private static final Path ROOT = ProjectRoot.find();

  @Test
  void theBomListsEveryPublishedModuleAndNothingElse() throws Exception {
    Document bom = parse(ROOT.resolve("bom/pom.xml"));
    Document parent = parse(ROOT.resolve("pom.xml"));
    assertThat(child(bom.getDocumentElement(), "version"))
        .as("the BOM's version follows the parent's")
        .isEqualTo(child(parent.getDocumentElement(), "version"));
    assertThat(child(bom.getDocumentElement(), "parent"))
        .as("no parent: importing the BOM must not manage third-party versions")
        .isNull();

    TreeSet<String> managed = new TreeSet<>();
    NodeList deps = bom.getElementsByTagName("dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Element d = (Element) deps.item(i);
      assertThat(child(d, "groupId")).isEqualTo("io.zoolander");
      assertThat(child(d, "version")).isEqualTo("${project.version}");
      managed.add(child(d, "artifactId"));
    }

    TreeSet<String> published = new TreeSet<>();
    for (Path pom : modulePoms()) {
      Element project = parse(pom).getDocumentElement();
      String packaging = child(project, "packaging");
      boolean skipsDeploy =
          project.getElementsByTagName("maven.deploy.skip").getLength() > 0
              && "true"
                  .equals(
                      project.getElementsByTagName("maven.deploy.skip").item(0).getTextContent());
      if ((packaging == null || packaging.equals("jar")) && !skipsDeploy) {
        published.add(child(project, "artifactId"));
      }
    }
    assertThat(published).as("published modules found").hasSizeGreaterThanOrEqualTo(9);
    assertThat(managed).isEqualTo(published);
  }

  private static List<Path> modulePoms() throws Exception {
    List<Path> poms = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT, 4)) {
      files
          .filter(p -> p.getFileName().toString().equals("pom.xml"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
          .filter(p -> !p.equals(ROOT.resolve("pom.xml")) && !p.equals(ROOT.resolve("bom/pom.xml")))
          .forEach(poms::add);
    }
    return poms;
  }

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return f.newDocumentBuilder().parse(pom.toFile());
  }

  /** The text of {@code parent}'s direct child {@code name}, or null. */
  private static String child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e.getTextContent().trim();
      }
    }
    return null;
  }
}
